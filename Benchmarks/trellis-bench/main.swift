import Trellis
print("usage: trellis-bench <workload>")
