import Foundation  // signal(3), exit(3): Foundation re-exports Glibc on Linux, Darwin on Apple platforms
import TrellisCLI

// A file size limit (`ulimit -f`) must make a write fail with `EFBIG`, which the store
// reports (`cannot write the store: disk I/O error: File too large`), not kill the process.
signal(SIGXFSZ, SIG_IGN)
// `trellis export | head -1`: when the reader goes away, end quietly by SIGPIPE (status 141
// in a shell) like cat(1), also when the parent process ignored SIGPIPE (inherited).
signal(SIGPIPE, SIG_DFL)

exit(TrellisCommand.main(arguments: Array(CommandLine.arguments.dropFirst())))
