import Foundation

/// A one-line progress bar on standard error for long imports: bytes read of the total,
/// objects per second and the estimated time left, redrawn in place (`\r`) at most ten
/// times a second and erased when done.
///
///     12.3 MB / 40.0 MB [=========>                    ]  30%  1,234 objects/s  ETA 0:12
///
/// Shown only when standard error is a terminal and the inputs total more than
/// ``threshold`` bytes; otherwise every call does nothing.
final class ProgressBar {
    /// Inputs smaller than this (4 MiB) import without a bar.
    static let threshold = 4 << 20

    private let totalBytes: Int
    private let isEnabled: Bool
    private let start = ContinuousClock.now
    private var lastDraw: ContinuousClock.Instant?
    private var drawn = false
    private var output: FileOutput

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
        let now = ContinuousClock.now
        if let lastDraw, now - lastDraw < .milliseconds(100) { return }
        lastDraw = now
        output.write("\r" + ProgressBar.line(bytes: bytes, total: totalBytes, objects: objects, elapsed: now - start))
        drawn = true
    }

    /// Erases the bar.
    func finish() {
        guard drawn else { return }
        output.write("\r\u{1B}[K")
        drawn = false
    }

    /// The text of the bar (without `\r`), for the given state.
    static func line(bytes: Int, total: Int, objects: Int, elapsed: Duration) -> String {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let fraction = total > 0 ? min(1, Double(bytes) / Double(total)) : 0
        let width = 30
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "=", count: max(0, filled - 1)) + (filled > 0 ? ">" : "")
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
