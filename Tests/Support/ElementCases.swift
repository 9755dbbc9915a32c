import BriefcaseKit

/// The table or delta an element holds, or nil: for `try #require(element.asTable)` in a test,
/// where `guard case .table(let t) = element else { return }` would end the test as passed.
extension Element {
    /// The table, when the element is one.
    public var asTable: Table? {
        if case .table(let table) = self { return table }
        return nil
    }

    /// The delta, when the element is one.
    public var asDelta: Delta? {
        if case .delta(let delta) = self { return delta }
        return nil
    }
}
