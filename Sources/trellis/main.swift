import TrellisCLI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

exit(TrellisCommand.main(arguments: Array(CommandLine.arguments.dropFirst())))
