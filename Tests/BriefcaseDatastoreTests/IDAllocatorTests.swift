import Testing
@testable import BriefcaseDatastore

/// Ids an integer's text and other ids are one scope: an integer key's id given as an integer
/// (`insert(integer:)`) is taken for its text, and the other way round; text that only looks
/// like an integer ("+5", "05", "-0") is another id. Expected values: the ids' texts compared as
/// strings (what a datastore compares), worked out by hand.
struct IDAllocatorTests {
    @Test func integersAndTheirTextAreOneID() {
        var ids = IDAllocator()
        let first = ids.insert(integer: 5), asText = ids.insert("5")
        #expect(first && !asText)
        #expect(ids.contains("5"))
        let minus = ids.insert("-7"), minusAsInteger = ids.insert(integer: -7)
        #expect(minus && !minusAsInteger)
        // The next free ids after "5" are "5.2", "5.3" (as for any taken id).
        let next = ids.allocate("5"), after = ids.allocate("5")
        #expect(next == "5.2" && after == "5.3")
    }

    @Test func textThatOnlyLooksLikeAnIntegerIsAnotherID() {
        var ids = IDAllocator()
        _ = ids.insert(integer: 5)
        _ = ids.insert(integer: 0)
        for text in ["+5", "05", "-0", "5.0", " 5", "9223372036854775808"] {
            let once = ids.insert(text), twice = ids.insert(text)
            #expect(once && !twice, "\(text)")
        }
        ids.remove("5")
        #expect(!ids.contains("5") && ids.contains("05"))
        let again = ids.insert(integer: 5)
        #expect(again)
    }
}
