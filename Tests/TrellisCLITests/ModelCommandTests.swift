import Testing
@testable import TrellisCLI

@Suite struct ModelCommandTests {}
