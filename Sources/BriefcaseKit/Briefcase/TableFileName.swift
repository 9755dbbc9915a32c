/// Safe file names for the tables of a folder briefcase.
///
/// A table name becomes `<escaped>.daBriefcase`: characters that are unsafe in a file name on
/// any platform (path separators, control characters, `%`, `:*?"<>|`, a leading dot or space, a
/// trailing dot or space) become `%XX` (UTF-8 bytes); Windows device names (`CON`, `NUL`, `COM1`…)
/// get their first letter escaped; over-long names are cut and end in a hash. Names that only
/// differ in case (which collide on case-insensitive file systems) get `~2`, `~3`… The mapping
/// need not be reversed: the real name is inside the file (its Bin2 index), which is what readers
/// use, so no name is lost.
package enum TableFileName {
    /// `daBriefcase`: the extension of a folder briefcase's table files.
    package static let fileExtension = "daBriefcase"
    static let maximumLength = 200

    /// File names for `names`, in order, unique even on case-insensitive file systems.
    package static func fileNames(for names: [String]) -> [String] {
        var used = Set<String>()
        return names.map { name in
            let base = escape(name)
            var candidate = base + "." + fileExtension
            var counter = 2
            while used.contains(candidate.lowercased()) {
                candidate = base + "~\(counter)." + fileExtension
                counter += 1
            }
            used.insert(candidate.lowercased())
            return candidate
        }
    }

    /// The escaped stem for one name (without extension or collision suffix).
    package static func escape(_ name: String) -> String {
        if name.isEmpty { return "%00empty" }
        var out = ""
        let scalars = Array(name.unicodeScalars)
        for (i, scalar) in scalars.enumerated() {
            let first = i == 0, last = i == scalars.count - 1
            let unsafe: Bool
            switch scalar.value {
            case 0..<0x20, 0x7F: unsafe = true
            case 0x25, 0x2F, 0x5C, 0x3A, 0x2A, 0x3F, 0x22, 0x3C, 0x3E, 0x7C, 0x7E: unsafe = true // % / \ : * ? " < > | ~
            case 0x2E, 0x20: unsafe = first || last // leading or trailing dot or space
            default: unsafe = false
            }
            if unsafe {
                for byte in String(scalar).utf8 { out += "%" + hex(byte) }
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        let stem = out.split(separator: ".", maxSplits: 1).first.map(String.init)?.uppercased() ?? ""
        let reserved = Set(["CON", "PRN", "AUX", "NUL"] + (1...9).map { "COM\($0)" } + (1...9).map { "LPT\($0)" })
        if reserved.contains(stem), let firstByte = out.utf8.first {
            out = "%" + hex(firstByte) + String(out.dropFirst())
        }
        if out.utf8.count > maximumLength {
            var cut = ""
            for character in out {
                if cut.utf8.count + character.utf8.count > maximumLength - 17 { break }
                cut.append(character)
            }
            // Do not cut an escape in half.
            if let percent = cut.lastIndex(of: "%"), cut.distance(from: percent, to: cut.endIndex) < 3 {
                cut = String(cut[..<percent])
            }
            out = cut + "-" + hex64(fnv1a(Array(name.utf8)))
        }
        return out
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
    }

    private static func hex64(_ value: UInt64) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: 16 - text.count) + text
    }

    private static func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }
}
