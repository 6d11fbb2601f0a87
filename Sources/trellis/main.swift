import TrellisCLI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// A file size limit (`ulimit -f`) must make a write fail with `EFBIG`, which the store
// reports (`cannot write the store: disk I/O error: File too large`), not kill the process.
signal(SIGXFSZ, SIG_IGN)

exit(TrellisCommand.main(arguments: Array(CommandLine.arguments.dropFirst())))
