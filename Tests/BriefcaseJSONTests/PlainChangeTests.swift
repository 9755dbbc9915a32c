import JSONCore
import Testing
import BriefcaseTestSupport
@testable import BriefcaseJSON
@testable import BriefcaseKit

/// The stream reader reads a delta's changes in their plain form straight from the bytes
/// (`RowReader.change`), anything else through `ValueReader` from the parsed value. The fast path
/// must never decide what is accepted: whenever it reads a change, the tree reading gives the same
/// change. Checked on every change of random briefcases (every data type and edge value, deltas of
/// every kind) and on thousands of mutants of them.
@Suite struct PlainChangeTests {
    @Test func plainChangesReadAsTheTreeReadsThem() throws {
        var random = SplitMix(seed: 1313)
        var mutation = SplitMix64(state: 13)
        var plain = 0, mutantsRead = 0
        for _ in 0 ..< 120 {
            let document = RandomBriefcase.make(&random)
            let codePage = CodePage.detect(in: document.file).codePage
            var encoder = JSONDocumentEncoder(sink: ArraySink(), codePage: codePage)
            guard (try? encoder.encode(document)) != nil, (try? encoder.writer.flush()) != nil else { continue }
            let parsed = try JSONParser.parse(encoder.writer.sink.bytes)
            let elements = try #require(parsed["elements"]?.arrayValue, "no elements")
            for (element, model) in zip(elements, document.file.stream.elements) {
                guard case .delta(let delta) = model, case .array(let changes)? = element["changes"] else { continue }
                let types = delta.loggedFields.map(\.type)
                let reader = RowReader(types: types, codePage: codePage)
                for (change, expected) in zip(changes, delta.changes) {
                    let text = change.serialized()
                    let fast = Self.fast(reader, text)
                    if let fast {
                        #expect(fast == expected, "\(String(decoding: text, as: UTF8.self))")
                        plain += 1
                    }
                    for _ in 0 ..< 12 {
                        let mutant = Mutation.mutant(of: text, &mutation, json: true)
                        guard let read = Self.fast(reader, mutant) else { continue }
                        mutantsRead += 1
                        let tree = try? ValueReader(codePage: codePage)
                            .change(Node(JSONParser.parse(mutant), "$").object(), types: types)
                        #expect(tree == read, "\(String(decoding: mutant, as: UTF8.self))")
                    }
                }
            }
        }
        #expect(plain > 100)
        #expect(mutantsRead > 100)
    }

    /// `RowReader.change` over the whole of `text` (nil also when it stops short of the end).
    static func fast(_ reader: RowReader, _ text: [UInt8]) -> DeltaChange? {
        text.withUnsafeBufferPointer { buffer in
            var position = 0
            guard let change = reader.change(buffer, &position), position == buffer.count else { return nil }
            return change
        }
    }
}
