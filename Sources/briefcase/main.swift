import ArgumentParser
import BriefcaseKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Exit status (../shared/cli-contract.md): 0 success, 1 invalid input or refused conversion,
// 2 usage, missing file or I/O error. Argument-parser's own codes (64 for usage) are mapped here.
StandardOutput.protectStandardDescriptors()
InterruptCleanup.install()
InputWatch.installFaultHandler()
do {
    try UsageCheck.checkHelpTopics(CommandLine.arguments.dropFirst())
    var command = try BriefcaseCommand.parseAsRoot()
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
        guard CommandLine.arguments.count > 1 else {
            Console.write(BriefcaseCommand.helpMessage() + "\n")
            exit(2)
        }
        do {
            try StandardOutput.write(BriefcaseCommand.fullMessage(for: error) + "\n")
        } catch {
            Console.error(error.description)
            exit(2)
        }
        exit(0)
    }
    Console.error(BriefcaseCommand.fullMessage(for: error))
    exit(2)
}
