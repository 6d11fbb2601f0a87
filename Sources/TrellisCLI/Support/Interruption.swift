import Dispatch
import Foundation

/// Ctrl-C (`SIGINT`) and `SIGTERM` while a command writes a store: the command ends at once
/// with `interrupted: nothing was imported` on a line of its own (the progress bar erased
/// first), status 130 (`SIGTERM`: `terminated: …`, 143, 128 + the signal as a shell reports
/// it), and the hidden files of a store being created are removed.
///
/// Ending at once is safe: until the command's transaction commits, the store on disk is as
/// it was (SQLite's write-ahead log, as after `kill -9`). So the handler, on its own
/// thread, does not wait for the import; only once the import has read its last element
/// (``finishing()``: it is applying and committing, briefly) does a signal wait for it to
/// end, and the command then ends as it would have (its work was done).
///
/// Without a command in progress (``begin(_:)`` not called, or ``end()`` called),
/// a signal has its default action. In-process runs (tests) never install the handlers:
/// only ``installForProcess()``, called by ``TrellisCommand/main(arguments:)``, does.
enum Interruption {
    /// What a command in progress asked to be told on a signal.
    private struct Registration {
        /// After `interrupted: `: `nothing was imported`.
        var message: String
        /// Erased before the message; nil until the command has one.
        var progress: ProgressBar?
        /// Run before the process ends (remove a staged store, a copy of standard input), by token.
        var cleanups: [Int: @Sendable () -> Void] = [:]
        var nextToken = 0
        /// Past the point where ending at once would lose committed work: wait instead.
        var isFinishing = false
    }

    // SAFETY: `registration` is read and written only with `lock` held; `sources` only in
    // `installForProcess()`, once, before any command runs.
    private final class Shared: @unchecked Sendable {
        let lock = NSLock()
        var registration: Registration?
        var sources: [any DispatchSourceSignal] = []
    }

    private static let shared = Shared()

    /// Routes `SIGINT` and `SIGTERM` to this handler (for the process's lifetime).
    ///
    /// Until it returns, a signal has its default action (nothing is written yet). On Linux,
    /// Dispatch blocks the signal and reads it from a `signalfd`, so a signal arriving
    /// meanwhile stays pending and reaches the handler; ignoring it (`SIG_IGN`) would
    /// discard it. On Darwin, a kqueue reports the signal but does not stop its default
    /// action, so it is ignored once the source exists (the one platform branch here).
    static func installForProcess() {
        for signalNumber in [SIGINT, SIGTERM] {
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { handle(signalNumber) }
            source.resume()
            shared.sources.append(source)
            #if canImport(Darwin)
                signal(signalNumber, SIG_IGN)
            #endif
        }
    }

    /// A command starts work a signal must not leave half done: on a signal, print
    /// `interrupted: MESSAGE` (erasing the progress bar, once ``show(_:)`` gave one).
    static func begin(_ message: String) {
        shared.lock.withLock { shared.registration = Registration(message: message) }
    }

    /// The progress bar to erase before the message; also starts a (new) pass over the
    /// inputs, during which a signal ends the command at once again.
    static func show(_ progress: ProgressBar) {
        shared.lock.withLock {
            shared.registration?.progress = progress
            shared.registration?.isFinishing = false
        }
    }

    /// Runs `cleanup` if a signal ends the command (before the message is written).
    /// - Returns: the token for ``removeCleanup(_:)``.
    @discardableResult
    static func onInterrupt(_ cleanup: @escaping @Sendable () -> Void) -> Int {
        shared.lock.withLock {
            guard var registration = shared.registration else { return -1 }
            let token = registration.nextToken
            registration.nextToken += 1
            registration.cleanups[token] = cleanup
            shared.registration = registration
            return token
        }
    }

    /// Drops a cleanup (its file was published or removed).
    static func removeCleanup(_ token: Int) {
        _ = shared.lock.withLock { shared.registration?.cleanups.removeValue(forKey: token) }
    }

    /// The command is committing: a signal from now on waits for it to end.
    static func finishing() {
        shared.lock.withLock { shared.registration?.isFinishing = true }
    }

    /// The command is done writing; signals have their default action again.
    static func end() {
        shared.lock.withLock { shared.registration = nil }
    }

    // MARK: - Internals

    private static func handle(_ signalNumber: Int32) {
        shared.lock.lock()
        guard let registration = shared.registration else {
            shared.lock.unlock()
            endByDefaultAction(of: signalNumber)
        }
        if registration.isFinishing {
            // The command ends by itself in a moment, as if no signal had come.
            shared.lock.unlock()
            return
        }
        for cleanup in registration.cleanups.values { cleanup() }
        let word = signalNumber == SIGTERM ? "terminated" : "interrupted"
        let line = "\(word): \(registration.message)"
        guard let progress = registration.progress else {
            var output = FileOutput.standardError
            output.write(line + "\n")
            _exit(128 + signalNumber)
        }
        progress.exit(printing: line, status: 128 + signalNumber)
    }

    /// Ends the process as `signalNumber`'s default action does (the parent sees the
    /// signal). Dispatch receives signals with them blocked, so this thread unblocks it first.
    private static func endByDefaultAction(of signalNumber: Int32) -> Never {
        signal(signalNumber, SIG_DFL)
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, signalNumber)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        raise(signalNumber)
        _exit(128 + signalNumber)
    }
}
