// libFuzzer's entry point for programs with their own `main` (compiler-rt's
// FuzzerInterface.h). SwiftPM links executables with `main` aliased to the module's
// entry point, so the fuzz targets have an `@main` that hands control to this driver.
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
