import BriefcaseKit
import JSONCore

/// Fixed-size byte chunks handed back after use, for the elements encoded ahead on worker
/// threads (`JSONDocumentEncoder.elementPreparation()`).
///
/// Why chunks and not one array per element: a large element's JSON is tens of megabytes. Grown
/// in one array it is copied at every doubling into fresh memory, and fresh memory costs a page
/// fault per 4 KiB touched — on a VM, enough to eat all a second core gains. Chunks of one size
/// never move, and any chunk serves any element, so once the first elements are through, every
/// element is written into memory already touched. The pool holds as many chunks as were ever in
/// flight at once: bounded by the elements the workers may hold ahead (`WorkDoneAhead`'s budget).
final class ChunkPool: Sendable {
    /// Bytes in a chunk: large enough that a chunk costs one write, small against an element.
    static let chunkSize = 1 << 20
    private let arrays = ByteArrayPool()

    /// An empty chunk of `chunkSize` capacity, one used before when there is one.
    func take() -> [UInt8] {
        var chunk = arrays.take()
        // Emptied here, not when handed back: by now whatever held it let it go, so the memory
        // is this array's alone and is kept (emptying a shared array would copy it).
        chunk.removeAll(keepingCapacity: true)
        chunk.reserveCapacity(Self.chunkSize)
        return chunk
    }

    /// Keeps the chunks' memory for later `take()`s.
    func giveBack(_ chunks: [[UInt8]]) {
        for chunk in chunks { arrays.giveBack(chunk) }
    }
}

/// A byte sink writing into chunks of a `ChunkPool`, each filled to `ChunkPool.chunkSize`.
struct ChunkSink: ResettableByteSink {
    let pool: ChunkPool
    /// What was written, in order.
    private(set) var chunks: [[UInt8]] = []

    init(pool: ChunkPool) { self.pool = pool }

    mutating func write(_ bytes: UnsafeRawBufferPointer) {
        var rest = bytes
        while !rest.isEmpty {
            if chunks.isEmpty || chunks[chunks.count - 1].count == ChunkPool.chunkSize { chunks.append(pool.take()) }
            let room = ChunkPool.chunkSize - chunks[chunks.count - 1].count
            let piece = UnsafeRawBufferPointer(rebasing: rest.prefix(room))
            chunks[chunks.count - 1].append(contentsOf: piece)
            rest = UnsafeRawBufferPointer(rebasing: rest.dropFirst(piece.count))
        }
    }

    /// Hands the chunks back unwritten (the element failed).
    mutating func giveBack() {
        pool.giveBack(chunks)
        chunks = []
    }

    /// Forgets what was written, its chunks back to the pool.
    mutating func reset() { giveBack() }
}
