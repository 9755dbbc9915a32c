import BriefcaseKit

/// Realistic text, fast: words (ASCII) and characters (CJK) kept as ready UTF-8 and UTF-16LE bytes,
/// joined into 8-bit (UTF-8) or wide (UTF-16LE) values without building Strings.
struct TextMaker {
    struct Token {
        var utf8: [UInt8]
        var utf16le: [UInt8]
        init(_ text: String) {
            utf8 = Array(text.utf8)
            utf16le = text.utf16.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] }
        }
    }

    static let words: [Token] = """
        the order customer invoice delivery payment account balance shipment product warehouse stock \
        quantity price discount total amount due date status pending approved rejected cancelled \
        north south east west central region branch office store online retail wholesale partner \
        supplier contract agreement renewal service support ticket request issue resolved open \
        closed priority high low normal urgent review note comment summary report monthly weekly \
        daily annual quarter budget forecast revenue cost margin profit tax vat net gross unit \
        box pallet container package item line number code reference batch serial model version \
        red green blue black white silver large small medium standard premium basic extra new used \
        Berlin Paris London Madrid Rome Vienna Prague Warsaw Lisbon Dublin Oslo Zurich Amsterdam \
        Anna Peter Maria John Laura Thomas Sophie Daniel Emma Lukas Julia Martin Sarah Paul Nina \
        and of to for with from by on at in is was will be has have please call back tomorrow \
        confirmed scheduled delayed returned refunded replaced checked packed shipped received
        """.split(separator: " ").map { Token(String($0)) }

    static let cjk: [Token] = Array(
        "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心反你明看原又么利比或但质气第向道命此变条只没结解问意建月公无系很情者最立代想已通并提直题程展五果料象员位入常文总次品式活设及管特件长求老头基资边流路级少图山统接知较将组见计别她手角期根论运农指几九区强放决西被干做必战先回则任取据处队南给色光门即保治北造百规热领七海口东导器压志世金增争济阶油思术极交受联什认六共权收证改清己美再采转更单风切打白教速花带安场身车例真务具万每目至达走积示议声报斗完类八离华名确才科张信马节话米整空元况今集温传土许步群广石记需段研界拉林律叫且究观越织装影算低持音众书布复容儿须际商非验连断深难近矿千周委素技备半办青省列习响约支般史感劳便团往酸历市克何除消构府称太准精值号率族维划选标写存候毛亲快效斯院查江型眼王按格养易置派层片始却专状育厂京识适属圆包火住调满县局照参红细引听该铁价严あいうえおかきくけこさしすせそたちつてとなにぬねのはひふへほまみむめもやゆよらりるれろわをんアイウエオカキクケコサシスセソ注文顧客請求書配送"
    ).map { Token(String($0)) }

    static let space = Token(" ")
    static let emoji = Token("😀")

    /// Text of about `length` UTF-8 bytes: ASCII words, or (with `cjk`) mostly CJK characters with
    /// some ASCII words in between, now and then an emoji (a surrogate pair in UTF-16).
    static func text(_ random: inout SplitMix64, length: Int, cjk withCJK: Bool, wide: Bool) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(wide ? length * 2 : length + 16)
        var produced = 0
        var first = true
        while produced < length {
            let token: Token
            let useCJK = withCJK && random.next() % 5 != 0
            if useCJK {
                token = random.next() % 97 == 0 ? emoji : Self.cjk[Int(random.next() % UInt64(Self.cjk.count))]
            } else {
                if !first { append(space, &out, wide); produced += 1 }
                token = words[Int(random.next() % UInt64(words.count))]
            }
            append(token, &out, wide)
            produced += token.utf8.count
            first = false
        }
        return out
    }

    @inline(__always)
    static func append(_ token: Token, _ out: inout [UInt8], _ wide: Bool) {
        out.append(contentsOf: wide ? token.utf16le : token.utf8)
    }
}
