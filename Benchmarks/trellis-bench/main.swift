import Trellis

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "store":
    try StoreBench.run(arguments: Array(arguments.dropFirst()))
default:
    print("usage: trellis-bench <workload>\n  store [N] [path]   store-level import (insert, unchanged, update passes)")
}
