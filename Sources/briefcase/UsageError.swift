/// A mistake in how the command was called that needs no usage dump: one line, exit 2
/// (e.g. an existing OUTPUT without --force). Argument-parser's own errors keep their usage text.
struct UsageError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}

enum UsageCheck {
    /// `briefcase help TOPIC…` names commands; argument-parser shows the main help for a name it
    /// does not know, with exit 0. An unknown topic is a usage error instead.
    static func checkHelpTopics(_ arguments: ArraySlice<String>) throws {
        guard arguments.first == "help" else { return }
        let known = BriefcaseCommand.configuration.subcommands.map { $0._commandName }
        for topic in arguments.dropFirst() where !topic.hasPrefix("-") && !known.contains(topic) {
            throw UsageError("no help for '\(topic)': not a command (commands: \(known.joined(separator: ", ")))")
        }
    }
}
