#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension FileIO {
    /// Opens an input file for reading: the one way every reader opens a path
    /// (Spec/robustness.md §8.2). Only a regular file (a symlink is followed) is opened; a FIFO,
    /// socket or device is refused at once with `.io` "not a regular file", before anything could
    /// block on it: the kind is looked at first, and the open itself is non-blocking and checked
    /// again with `fstat` (the path may change in between). A directory is `.invalidData`
    /// "is a directory". Returns the descriptor (blocking again) and the file's status (size,
    /// device and inode).
    public static func openRegularFile(_ path: String) throws(BriefcaseError) -> (descriptor: Int32, status: stat) {
        var info = stat()
        if stat(systemPath(path), &info) == 0 {
            try requireRegular(info.st_mode, path)
        }
        let fd = open(systemPath(path), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else {
            guard errno == ENOENT else { throw ioError("cannot open", path) }
            throw BriefcaseError(.io, lstat(systemPath(path), &info) == 0 ? "no such file (a symbolic link to nothing)" : "no such file", file: path)
        }
        guard fstat(fd, &info) == 0 else {
            let error = ioError("cannot read", path)
            close(fd)
            throw error
        }
        do throws(BriefcaseError) {
            try requireRegular(info.st_mode, path)
        } catch {
            close(fd)
            throw error
        }
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0 { _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) }
        return (fd, info)
    }

    private static func requireRegular(_ mode: mode_t, _ path: String) throws(BriefcaseError) {
        switch mode & S_IFMT {
        case S_IFREG: return
        case S_IFDIR: throw BriefcaseError(.invalidData, "is a directory", file: path)
        case S_IFIFO: throw BriefcaseError(.io, "not a regular file (a FIFO)", file: path)
        case S_IFCHR: throw BriefcaseError(.io, "not a regular file (a character device)", file: path)
        case S_IFBLK: throw BriefcaseError(.io, "not a regular file (a block device)", file: path)
        case S_IFSOCK: throw BriefcaseError(.io, "not a regular file (a socket)", file: path)
        default: throw BriefcaseError(.io, "not a regular file", file: path)
        }
    }
}
