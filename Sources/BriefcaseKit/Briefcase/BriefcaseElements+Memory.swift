#if canImport(Glibc)
import Glibc
#endif

extension BriefcaseElements {
    /// Asks the C allocator to keep freed memory mapped for reuse: the top of the heap is not
    /// given back to the system, and blocks up to 32 MiB come from the heap rather than from
    /// their own mapping. An element-by-element conversion frees each table before decoding the
    /// next one of similar size; by default glibc returns that memory and the next table faults
    /// it in again page by page (a third of the page faults and about 8 % of the time of a
    /// dabriefcase → json conversion). Peak memory does not grow: the memory is reused.
    ///
    /// It sets process-wide allocator options, so the library never calls it by itself: a process
    /// that converts and exits (the `briefcase` tool) opts in. No effect where glibc is not the
    /// allocator.
    public static func keepFreedMemoryForReuse() {
        #if canImport(Glibc)
        // mallopt is in <malloc.h>, which the Glibc module does not import: looked up by name.
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, "mallopt") else { return }
        let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
        _ = mallopt(-1, 1 << 30)   // M_TRIM_THRESHOLD
        _ = mallopt(-3, 32 << 20)  // M_MMAP_THRESHOLD (glibc's maximum on 64-bit)
        #endif
    }
}
