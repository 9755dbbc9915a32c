import BriefcaseKit

extension JSONDocumentEncoder {
    /// Writes the JSON document of a binary briefcase on disk element by element (one decoded
    /// table in memory at a time): byte for byte what `encode(_ document:)` writes for the whole
    /// decoded document, with the code page `CodePage.detect(in:)` would choose (or `encoding`).
    ///
    /// `makeSink` gives a fresh, empty sink; it is called again (after `discard` of the first)
    /// in the rare case where a row's 8-bit text contradicts the code page the heads suggested,
    /// which is then detected exactly (see `BriefcaseElements.convert`). Without `canRestart`
    /// (a sink that cannot be taken back, like standard output) the exact detection runs first.
    /// Returns the flushed sink (not closed) and the report: code page, warnings, skipped elements.
    public static func write(_ elements: BriefcaseElements, encoding: CodePage?, skipDamaged: Bool = false, canRestart: Bool = true,
                             makeSink: () throws -> Sink, discard: (inout Sink) -> Void) throws -> (sink: Sink, report: ElementConversionReport) {
        var encoder: JSONDocumentEncoder?
        do {
            let report = try elements.convert(encoding: encoding, skipDamaged: skipDamaged, canRestart: canRestart, start: { codePage in
                encoder = JSONDocumentEncoder(sink: try makeSink(), codePage: codePage)
                encoder!.begin(container: elements.container, properties: elements.properties, headerPadding: elements.headerPadding)
            }, consume: { _, element in
                try encoder!.encode(element)
            }, allValidUTF8: {
                !encoder!.emitter.takeInvalidUTF8()
            }, abandon: {
                if encoder != nil { discard(&encoder!.writer.sink) }
                encoder = nil
            })
            try encoder!.end()
            return (encoder!.writer.sink, report)
        } catch {
            if encoder != nil { discard(&encoder!.writer.sink) }
            throw error
        }
    }
}
