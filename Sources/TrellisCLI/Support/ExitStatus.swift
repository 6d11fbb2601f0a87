/// The exit statuses of `trellis` (sysexits(3) for bad usage).
public enum ExitStatus {
    /// The command did what was asked.
    public static let success: Int32 = 0
    /// The command failed (bad input, store error); the store is unchanged.
    public static let failure: Int32 = 1
    /// The command line is wrong (`EX_USAGE`); nothing was done.
    public static let usage: Int32 = 64
}
