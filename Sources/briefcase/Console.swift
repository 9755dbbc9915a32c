import BriefcaseKit

/// Standard error, one line per message. Every message is escaped for the terminal
/// (`TerminalText`, Spec/robustness.md §9): names, paths and values in it come from files and
/// arguments, and a control character among them would act on the terminal.
enum Console {
    /// `briefcase: MESSAGE`, escaped; `keepingLineBreaks` for argument-parser's usage text, which
    /// is several lines.
    static func error(_ message: String, keepingLineBreaks: Bool = false) {
        write("briefcase: " + TerminalText.escaped(message, keepingLineBreaks: keepingLineBreaks) + "\n")
    }

    static func warning(_ message: String) {
        write("briefcase: warning: " + TerminalText.escaped(message) + "\n")
    }

    static func note(_ message: String) {
        write("briefcase: note: " + TerminalText.escaped(message) + "\n")
    }

    /// Lines, each escaped, the line breaks kept.
    static func writeLines(_ text: String) {
        write(TerminalText.escaped(text, keepingLineBreaks: true))
    }

    /// Writes `text` as it is (a failure to write to standard error cannot be reported anywhere):
    /// for text already escaped, or made by the tool alone (the progress bar's own sequences).
    /// The one writer of standard error.
    static func write(_ text: String) {
        var text = text
        _ = text.withUTF8 { SystemCall.writeAll(2, UnsafeRawBufferPointer($0)) }
    }
}
