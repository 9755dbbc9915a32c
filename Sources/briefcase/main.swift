import ArgumentParser
import BriefcaseKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Exit status (../shared/cli-contract.md): 0 success, 1 invalid input or refused conversion,
// 2 usage, missing file or I/O error. Argument-parser's own codes (64 for usage) are mapped here.
// Every message is escaped for the terminal (Console; help and usage text keep their line breaks).
StandardOutput.protectStandardDescriptors()
InterruptCleanup.install()
InputWatch.installFaultHandler()
let arguments: [String]
switch CommandArguments.read() {
case .success(let read): arguments = read
case .failure(let error):
    Console.error(error.message)
    exit(2)
}
do {
    try UsageCheck.checkHelpTopics(arguments.dropFirst())
    var command = try BriefcaseCommand.parseAsRoot(Array(arguments.dropFirst()))
    try command.run()
} catch let error as BriefcaseError {
    Console.error(error.description)
    exit(error.kind == .io ? 2 : 1)
} catch let error as UsageError {
    Console.error(error.message)
    exit(2)
} catch let code as ExitCode {
    exit(code.rawValue)
} catch {
    if BriefcaseCommand.exitCode(for: error) == .success {
        // Help on request. Without a command at all, the help is a usage error (as for jq and git).
        guard arguments.count > 1 else {
            Console.writeLines(BriefcaseCommand.helpMessage() + "\n")
            exit(2)
        }
        do {
            try StandardOutput.write(TerminalText.escaped(BriefcaseCommand.fullMessage(for: error) + "\n", keepingLineBreaks: true))
        } catch {
            Console.error(error.description)
            exit(2)
        }
        exit(0)
    }
    Console.error(BriefcaseCommand.fullMessage(for: error), keepingLineBreaks: true)
    exit(2)
}
