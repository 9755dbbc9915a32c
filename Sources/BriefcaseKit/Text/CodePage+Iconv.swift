#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

// MARK: - iconv

/// The converters of one iconv code page, both directions, and whether ASCII maps to itself.
final class IconvCodec: Sendable {
    /// Code page → UTF-8.
    let decoder: IconvPool
    /// UTF-8 → code page.
    let encoder: IconvPool
    let asciiIsIdentity: Bool

    /// Codecs already opened, by iconv name (and fast path candidacy), so that creating the same
    /// code page again reuses its descriptors and its ASCII check.
    private static let cache = Mutex<[String: IconvCodec]>([:])

    /// The codec for `iconvName`, opened once per process; nil when iconv cannot open it.
    static func shared(iconvName: String, fastPathCandidate: Bool) -> IconvCodec? {
        let key = (fastPathCandidate ? "known:" : "other:") + iconvName.asciiLowercased()
        return cache.withLock { cache -> IconvCodec? in
            if let codec = cache[key] { return codec }
            guard let codec = IconvCodec(iconvName: iconvName, fastPathCandidate: fastPathCandidate) else { return nil }
            cache[key] = codec
            return codec
        }
    }

    /// Nil when iconv cannot open either direction. `fastPathCandidate`: the code page is a known
    /// stateless one, for which the ASCII identity check below is conclusive.
    init?(iconvName: String, fastPathCandidate: Bool) {
        // Decoding: a byte gives at most 3 UTF-8 bytes in the known code pages, so the first
        // buffer usually fits; the result is copied into a String right away. Encoding: the output
        // is kept (as a ByteString), so start small; it rarely outgrows its UTF-8 input.
        guard let decoder = IconvPool(to: "UTF-8", from: iconvName, bytesPerInputByte: 3),
              let encoder = IconvPool(to: iconvName, from: "UTF-8", bytesPerInputByte: 1) else { return nil }
        self.decoder = decoder
        self.encoder = encoder
        if fastPathCandidate {
            // Every ASCII byte must decode to itself and every ASCII character encode to itself
            // (glibc's SHIFT_JIS, for one, maps 0x5C to ¥ and 0x7E to ‾).
            let ascii = (0...0x7F).map(UInt8.init)
            let decoded = ascii.withUnsafeBufferPointer { decoder.convert($0, mode: .strict) }
            let encoded = ascii.withUnsafeBufferPointer { encoder.convert($0, mode: .strict) }
            asciiIsIdentity = decoded == ascii && encoded == ascii
        } else {
            asciiIsIdentity = false
        }
    }
}

enum ConversionMode {
    /// Fail on any invalid or incomplete input, or on an irreversible conversion.
    case strict
    /// Replace each invalid byte (and an incomplete sequence at the end) with U+FFFD.
    case lossy
    /// Like `strict`, but the output is thrown away as it is produced (for testing validity).
    case validate
}

/// Open iconv descriptors for one direction. A descriptor is used by one caller at a time: it is
/// taken from the idle list (or opened), used, reset and put back.
final class IconvPool: Sendable {
    let to: String
    let from: String
    /// Initial output buffer size per input byte (the buffer grows when iconv reports E2BIG).
    let bytesPerInputByte: Int
    /// Idle descriptors, as bit patterns (`iconv_t` is a raw pointer, which is not `Sendable`).
    private let idle = Mutex<[Int]>([])
    private static let maximumIdle = 8

    init?(to: String, from: String, bytesPerInputByte: Int) {
        self.to = to
        self.from = from
        self.bytesPerInputByte = bytesPerInputByte
        guard let handle = IconvHandle(to: to, from: from) else { return nil }
        idle.withLock { $0.append(handle.bitPattern) }
    }

    deinit {
        for bits in idle.withLock({ $0 }) { IconvHandle(bitPattern: bits)?.close() }
    }

    /// Runs `body` with a descriptor in its initial state; nil when none can be opened.
    func withHandle<R>(_ body: (IconvHandle) -> R) -> R? {
        let cached = idle.withLock { $0.popLast() }
        guard let handle = cached.flatMap(IconvHandle.init(bitPattern:)) ?? IconvHandle(to: to, from: from) else { return nil }
        let result = body(handle)
        handle.reset()
        let kept = idle.withLock { list -> Bool in
            guard list.count < Self.maximumIdle else { return false }
            list.append(handle.bitPattern)
            return true
        }
        if !kept { handle.close() }
        return result
    }

    /// The converted bytes of `input`; nil on failure (see `ConversionMode`).
    func convert(_ input: UnsafeBufferPointer<UInt8>, mode: ConversionMode) -> [UInt8]? {
        withHandle { handle -> [UInt8]? in
            var output: [UInt8] = []
            return handle.convert(input, mode: mode, scratch: &output, bytesPerInputByte: bytesPerInputByte)
        } ?? nil
    }
}

/// One iconv descriptor (not thread-safe: used by one caller at a time via `IconvPool`).
struct IconvHandle {
    let descriptor: iconv_t

    init?(to: String, from: String) {
        guard let descriptor = iconv_open(to, from), Int(bitPattern: descriptor) != -1 else { return nil }
        self.descriptor = descriptor
    }

    init?(bitPattern: Int) {
        guard let descriptor = iconv_t(bitPattern: bitPattern) else { return nil }
        self.descriptor = descriptor
    }

    var bitPattern: Int { Int(bitPattern: descriptor) }

    func close() { _ = iconv_close(descriptor) }

    /// Back to the initial shift state.
    func reset() { _ = iconv(descriptor, nil, nil, nil, nil) }

    /// Converts all of `input`, then flushes the shift state. Returns the output (in `buffer`, which
    /// is also returned) or nil on failure; in `.validate` mode `buffer` is reused as scratch space
    /// and the result is an empty array.
    func convert(_ input: UnsafeBufferPointer<UInt8>, mode: ConversionMode, scratch buffer: inout [UInt8],
                 bytesPerInputByte: Int = 3) -> [UInt8]? {
        if mode != .validate {
            buffer = [UInt8](repeating: 0, count: input.count * bytesPerInputByte + 16)
        } else if buffer.count < 64 {
            buffer = [UInt8](repeating: 0, count: 1024)
        }
        var used = 0
        var inLeft = input.count
        var inPointer: UnsafeMutablePointer<CChar>? = input.baseAddress.map {
            UnsafeMutableRawPointer(mutating: $0).assumingMemoryBound(to: CChar.self)
        }
        var flushing = inLeft == 0
        var irreversible = 0

        /// Writes U+FFFD at `used` (lossy mode).
        func appendReplacement() {
            if buffer.count - used < 3 { buffer.append(contentsOf: repeatElement(0, count: buffer.count)) }
            buffer[used] = 0xEF; buffer[used + 1] = 0xBF; buffer[used + 2] = 0xBD
            used += 3
        }

        while true {
            var result = 0
            var error: Int32 = 0
            buffer.withUnsafeMutableBufferPointer { out in
                let base = UnsafeMutableRawPointer(out.baseAddress!).assumingMemoryBound(to: CChar.self)
                var outPointer: UnsafeMutablePointer<CChar>? = base + used
                var outLeft = out.count - used
                if flushing {
                    result = iconv(descriptor, nil, nil, &outPointer, &outLeft)
                } else {
                    result = iconv(descriptor, &inPointer, &inLeft, &outPointer, &outLeft)
                }
                if result == -1 { error = errno }
                used = out.count - outLeft
            }
            if result == -1 {
                switch error {
                case E2BIG:
                    if mode == .validate {
                        used = 0
                    } else {
                        buffer.append(contentsOf: repeatElement(0, count: buffer.count))
                    }
                    continue
                case EILSEQ where mode == .lossy && !flushing && inLeft > 0:
                    appendReplacement()
                    inPointer = inPointer.map { $0 + 1 }
                    inLeft -= 1
                    if inLeft == 0 { flushing = true }
                    continue
                case EINVAL where mode == .lossy && !flushing:
                    appendReplacement()
                    inLeft = 0
                    flushing = true
                    continue
                default:
                    if mode == .lossy {
                        // Unexpected: keep what was converted and stop.
                        appendReplacement()
                        buffer.removeSubrange(used...)
                        return buffer
                    }
                    return nil
                }
            }
            irreversible += result
            if flushing { break }
            flushing = true
        }
        if irreversible > 0 && mode != .lossy { return nil }
        if mode == .validate { return [] }
        buffer.removeSubrange(used...)
        return buffer
    }
}
