import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Test-only crash points of a push: with `TRELLIS_TEST_PUSH_KILL=POINT` (or `POINT:N`, the
/// Nth time) in the environment the process sends itself `SIGKILL` there, so the crash-safety
/// tests can kill `trellis sync --push-only` at a named moment instead of racing it. Points:
/// `afterMarking` (the batch's rows committed `sending`, nothing sent), `midSend` (half a
/// second after the request went out: the test server holds it longer with a `delay` fault),
/// `afterResponse` (the server answered, nothing recorded), `whileRecording` (inside the
/// recording transaction, before it commits), `whileSettling` (inside the transaction that
/// writes the server's copy over a conflicting change, before it commits). Without the
/// variable nothing happens.
final class PushHooks: @unchecked Sendable {
    // SAFETY: `count` is touched only by the pushing thread (`reach`, `arm`); the timer of
    // `midSend` only kills the process.
    enum Point: String {
        case afterMarking, midSend, afterResponse, whileRecording, whileSettling
    }

    private let point: Point?
    private let occurrence: Int
    private var count = 0

    init(point: Point?, occurrence: Int) {
        self.point = point
        self.occurrence = occurrence
    }

    static func fromEnvironment() -> PushHooks {
        guard let text = ProcessInfo.processInfo.environment["TRELLIS_TEST_PUSH_KILL"] else { return PushHooks(point: nil, occurrence: 1) }
        let parts = text.split(separator: ":")
        return PushHooks(point: parts.first.flatMap { Point(rawValue: String($0)) }, occurrence: parts.count > 1 ? Int(parts[1]) ?? 1 : 1)
    }

    /// Kills the process at `point` when it is the named one, the Nth time.
    func reach(_ point: Point) {
        guard point == self.point, point != .midSend else { return }
        count += 1
        if count == occurrence { kill(getpid(), SIGKILL) }
    }

    /// `midSend`: kills the process half a second from now (the request is on its way).
    func arm(_ point: Point) {
        guard point == self.point, point == .midSend else { return }
        count += 1
        if count == occurrence {
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.5) { kill(getpid(), SIGKILL) }
        }
    }
}
