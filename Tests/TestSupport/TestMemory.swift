/// How much more memory than usual a bound on a process's growth allows: the factor in the
/// environment variable `QCHAT_TEST_MEMORY_SCALE` (1 when unset). `make test-sanitize` sets it for
/// ThreadSanitizer, whose shadow memory grows a process's RSS several times over what the program
/// itself uses. Only bounds on resident memory are scaled, never a count the program keeps.
public enum TestMemory {
    public static let scale = environmentFactor("QCHAT_TEST_MEMORY_SCALE")

    public static func scaled(_ bytes: Int) -> Int { Int(Double(bytes) * scale) }
}
