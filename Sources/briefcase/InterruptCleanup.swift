import BriefcaseKit
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SIGINT, SIGTERM and SIGHUP end the process only after the temporary files and folders of an
/// unfinished write are removed (`TemporaryPaths`), with exit status 128 + the signal's number.
/// The signals are blocked in every thread and taken by one thread with `sigwait`, so the
/// cleanup runs as ordinary code, not in a signal handler.
enum InterruptCleanup {
    static let signals = [SIGINT, SIGTERM, SIGHUP]

    /// Call first in `main`, before any other thread exists (threads inherit the blocked set).
    static func install() {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in signals { sigaddset(&set, signal) }
        guard pthread_sigmask(SIG_BLOCK, &set, nil) == 0 else { return }
        let waited = set
        Thread.detachNewThread {
            var set = waited
            var signal: Int32 = 0
            while sigwait(&set, &signal) != 0 {}
            TemporaryPaths.removeAllAndExit(128 + signal)
        }
    }
}
