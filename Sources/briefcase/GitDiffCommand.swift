import ArgumentParser
import BriefcaseDiff
import BriefcaseKit

struct GitDiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "git-diff",
        abstract: "git's external diff for briefcases (diff.briefcase.command): the row-level diff.",
        discussion: """
        git runs it with seven arguments: PATH OLD-FILE OLD-HEX OLD-MODE NEW-FILE NEW-HEX NEW-MODE \
        (git-setup --external sets it up). It prints `briefcase diff`'s text for OLD-FILE and \
        NEW-FILE, labelled a/PATH and b/PATH; a file that is not there on one side (/dev/null) is \
        an empty briefcase. It exits 0 when it could compare, differences or not (git stops at a \
        non-zero status), 2 on trouble.

        Examples:
          git diff --ext-diff HEAD~1 -- Orders.daBriefcase
        """
    )

    @Argument(help: "The seven arguments git passes (see above).")
    var arguments: [String]

    func validate() throws {
        guard arguments.count == 7 else {
            throw ValidationError("git passes 7 arguments (PATH OLD-FILE OLD-HEX OLD-MODE NEW-FILE NEW-HEX NEW-MODE), not \(arguments.count)")
        }
    }

    func run() throws {
        let path = arguments[0]
        func input(_ file: String, label: String) throws -> TablesInput {
            if file == "/dev/null" { return TablesInput(empty: label) }
            do {
                return try TablesInput(file, options: try InputOptions.parse([]), label: label)
            } catch let error as BriefcaseError {
                throw TablesInput.trouble(error)
            }
        }
        let (old, new, differences) = try TablesInput.compare(try input(arguments[1], label: "a/" + path), try input(arguments[4], label: "b/" + path),
                                                            options: DiffOptions())
        try StandardOutput.write(DiffPrinter(old: old, new: new, colored: false).text(differences))
    }
}
