import Foundation
import Trellis

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "engine" {
    exit(EngineWorkload.run(Array(arguments.dropFirst())))
}
print("usage: trellis-bench <workload>")
