import ArgumentParser
import BriefcaseKit
#if canImport(Glibc)
import Glibc
#endif

// Exit status (../shared/cli-contract.md): 0 success, 1 invalid input or refused conversion,
// 2 usage, missing file or I/O error. Argument-parser's own codes (64 for usage) are mapped here.
do {
    var command = try BriefcaseCommand.parseAsRoot()
    try command.run()
} catch let error as BriefcaseError {
    Console.error(error.description)
    exit(error.kind == .io ? 2 : 1)
} catch let code as ExitCode {
    exit(code.rawValue)
} catch {
    if BriefcaseCommand.exitCode(for: error) == .success {
        print(BriefcaseCommand.fullMessage(for: error))
        exit(0)
    }
    Console.error(BriefcaseCommand.fullMessage(for: error))
    exit(2)
}
