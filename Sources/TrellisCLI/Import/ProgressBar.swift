import Foundation

/// A one-line progress bar on standard error for long imports: bytes read of the total,
/// objects per second and the estimated time left, redrawn in place (`\r`) at most ten
/// times a second and erased when done.
///
///     12.3 MB / 40.0 MB [=========>                    ]  30%  1,234 objects/s  ETA 0:12
///
/// Shown only when standard error is a terminal and the inputs total more than
/// ``threshold`` bytes; otherwise every call does nothing (but ``write(line:)`` and
/// ``exit(printing:status:)``, which write their line anyway).
///
/// While the import waits for another writer's lock (``waiting(_:)``) the bar reads
/// `waiting for another import to finish… 0:03`. Safe to use from any thread: the signal
/// handler (``Interruption``) ends the process through ``exit(printing:status:)``, which
/// holds the bar's lock to the end, so no redraw can follow its message.
final class ProgressBar: @unchecked Sendable {
    // SAFETY: every mutable property (`lastDraw`, `drawn`, `output`, `announcedWait`) is read and written
    // with `lock` held; the others are constants.

    /// Inputs smaller than this (4 MiB) import without a bar.
    static let threshold = 4 << 20

    /// Shown on a line of its own, and in the bar, while a write waits for another writer.
    static let waitingText = "waiting for another import to finish…"

    private let totalBytes: Int
    private let isEnabled: Bool
    private let start = ContinuousClock.now
    private let lock = NSLock()
    private var lastDraw: ContinuousClock.Instant?
    private var drawn = false
    private var output: FileOutput
    private var announcedWait = false

    /// - Parameters:
    ///   - totalBytes: the size of all inputs (0 when unknown, e.g. standard input: no bar).
    ///   - enabled: the environment allows a bar (standard error is a terminal).
    init(totalBytes: Int, enabled: Bool, output: FileOutput = .standardError) {
        self.totalBytes = totalBytes
        self.isEnabled = enabled && totalBytes > ProgressBar.threshold
        self.output = output
    }

    /// Redraws the bar if a tenth of a second has passed since the last draw.
    func update(bytes: Int, objects: Int) {
        guard isEnabled else { return }
        draw { now in ProgressBar.line(bytes: bytes, total: totalBytes, objects: objects, elapsed: now - start) }
    }

    /// The import has waited `waited` for another writer's lock: from a second on, says so
    /// once on a line of its own (``waitingText``, bar or not), and in the bar.
    func waiting(_ waited: Duration) {
        guard waited >= .seconds(1) else { return }
        if lock.withLock({ !announcedWait }) {
            write(line: ProgressBar.waitingText)
            lock.withLock { announcedWait = true }
        }
        guard isEnabled else { return }
        draw { _ in "\(ProgressBar.waitingText) \(ProgressBar.clock(waited))" }
    }

    /// Writes `line` (and a newline) on standard error, on a line of its own: the bar is
    /// erased first and drawn again by the next update.
    func write(line: String) {
        lock.withLock {
            output.write((drawn ? "\r\u{1B}[K" : "") + line + "\n")
            drawn = false
            lastDraw = nil
        }
    }

    /// Erases the bar.
    func finish() {
        lock.withLock {
            guard drawn else { return }
            output.write("\r\u{1B}[K")
            drawn = false
        }
    }

    /// Erases the bar, writes `line` on its own line and ends the process with `status`,
    /// without running anything else of it (`_exit(2)`): no bar is drawn after the line.
    func exit(printing line: String, status: Int32) -> Never {
        lock.lock()
        output.write((drawn ? "\r\u{1B}[K" : "") + line + "\n")
        _exit(status)
    }

    private func draw(_ text: (ContinuousClock.Instant) -> String) {
        lock.withLock {
            let now = ContinuousClock.now
            if let lastDraw, now - lastDraw < .milliseconds(100) { return }
            lastDraw = now
            output.write("\r" + text(now) + "\u{1B}[K")
            drawn = true
        }
    }

    /// `0:03`, `12:40`: minutes and seconds.
    static func clock(_ duration: Duration) -> String {
        let seconds = Int(duration.components.seconds)
        return "\(seconds / 60):" + (seconds % 60 < 10 ? "0" : "") + "\(seconds % 60)"
    }

    /// The text of the bar (without `\r`), for the given state.
    static func line(bytes: Int, total: Int, objects: Int, elapsed: Duration) -> String {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let fraction = total > 0 ? min(1, Double(bytes) / Double(total)) : 0
        let width = 30
        let filled = Int(fraction * Double(width))
        let bar =
            String(repeating: "=", count: max(0, filled - 1)) + (filled > 0 ? ">" : "")
            + String(repeating: " ", count: width - filled)
        let rate = seconds > 0 ? Int(Double(objects) / seconds) : 0
        var eta = "--:--"
        if fraction > 0, seconds > 0 {
            let left = Int((seconds / fraction - seconds).rounded())
            eta = "\(left / 60):" + (left % 60 < 10 ? "0" : "") + "\(left % 60)"
        }
        let percent = String(Int(fraction * 100))
        return "\(megabytes(bytes)) / \(megabytes(total)) [\(bar)] "
            + String(repeating: " ", count: max(0, 3 - percent.count)) + "\(percent)%  \(grouped(rate)) objects/s  ETA \(eta)"
    }

    /// `12.3 MB` (10^6 bytes).
    static func megabytes(_ bytes: Int) -> String {
        let tenths = (bytes + 50_000) / 100_000
        return "\(tenths / 10).\(tenths % 10) MB"
    }

    /// `1,234,567`.
    static func grouped(_ n: Int) -> String {
        var digits = Array(String(n))
        var out = ""
        while digits.count > 3 {
            out = "," + String(digits.suffix(3)) + out
            digits.removeLast(3)
        }
        return String(digits) + out
    }
}
