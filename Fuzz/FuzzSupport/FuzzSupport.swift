import CLibFuzzer
import Foundation

/// The type of a libFuzzer test function: `(data, size) -> 0`.
public typealias FuzzTest = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

/// Runs libFuzzer with the process's arguments (`-max_total_time=60 corpus/`, …) on
/// `test`, and exits with its status (non-zero on a crash, leak or timeout).
public func runLibFuzzer(_ test: FuzzTest) -> Never {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, test))
}

/// The input as a byte array (libFuzzer may pass a null pointer for an empty input).
public func fuzzInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> [UInt8] {
    guard let start, count > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: start, count: count))
}
