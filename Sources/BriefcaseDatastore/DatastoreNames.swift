// Briefcase names (tables, columns, key values) ↔ datastore ids (Spec/datastore-mapping.md §3).
//
//   encode(name) = name                         when name is a valid id and decode(name) == name
//                = "=" + base64url(UTF-8 name)  otherwise, when that fits 64 characters
//                = nil                          otherwise (the caller uses a long form)
//   decode(id)   = the name whose encoding is id, when id starts with "=" and is one; else id
//
// So every name that fits has exactly one id, every id has exactly one name, and
// encode(decode(id)) == id for every valid id: a plain snapshot's ids come back unchanged.

import JSONCore
import BriefcaseJSON
import BriefcaseKit
import DatastoreKit

/// Briefcase names (tables, columns, key values) as datastore ids and back, one id per name (Spec/datastore-mapping.md §3).
public enum DatastoreNames {
    /// The id of a name, or nil when its encoded form would be longer than 64 characters.
    public static func encode(_ name: String) -> String? {
        if DatastoreIdentifier.isValid(name) && decode(name) == name { return name }
        let id = "=" + URLSafeBase64.encode(Array(name.utf8))
        return id.utf8.count <= DatastoreIdentifier.maxLength ? id : nil
    }

    /// The name an id stands for (the id itself unless it is the encoded form of another name).
    public static func decode(_ id: String) -> String {
        guard id.utf8.first == UInt8(ascii: "="),
              let bytes = URLSafeBase64.decode(String(id.dropFirst())),
              let name = String(validating: bytes, as: UTF8.self),
              encode(name) == id
        else { return id }
        return name
    }

    /// The long form for names that cannot be encoded (too long, or bytes that are not text in
    /// the code page): `==` and 16 hexadecimal digits of the FNV-1a hash of the bytes. It is an
    /// ordinary id (it decodes to itself); the name travels in the document's `briefcase` member.
    public static func longForm(_ bytes: some Sequence<UInt8>) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return "==" + String(repeating: "0", count: 16 - hex.count) + hex
    }
}

/// Hands out ids that are unique in one scope (the tables of a datastore, the fields of a
/// table, the live records of a table): a taken id gets `.2`, `.3`, … (shortened to fit).
struct IDAllocator {
    /// The ids that are an integer's decimal text (`String(n)`: the record ids of a table keyed
    /// by an integer, the common case), kept as the integer: hashing it costs far less than
    /// hashing its text. Every other id is kept as text.
    private var integers = Set<Int64>()
    private var texts = Set<String>()

    /// The integer whose decimal text `id` is exactly, if any.
    private static func integer(_ id: String) -> Int64? {
        guard let first = id.utf8.first, first == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first),
              let value = Int64(id), String(value) == id else { return nil }
        return value
    }

    /// `preferred` when it is valid and free, else the first free `preferred.N`.
    mutating func allocate(_ preferred: String) -> String {
        var base = preferred
        if !DatastoreIdentifier.isValid(base) { base = DatastoreNames.longForm(base.utf8) }
        if insert(base) { return base }
        var n = 2
        while true {
            let suffix = ".\(n)"
            let id = String(base.prefix(DatastoreIdentifier.maxLength - suffix.count)) + suffix
            if DatastoreIdentifier.isValid(id), insert(id) { return id }
            n += 1
        }
    }

    func contains(_ id: String) -> Bool { Self.integer(id).map(integers.contains) ?? texts.contains(id) }
    mutating func insert(_ id: String) -> Bool {
        if let value = Self.integer(id) { return integers.insert(value).inserted }
        return texts.insert(id).inserted
    }
    /// `insert(String(value))`, without the text.
    mutating func insert(integer value: Int64) -> Bool { integers.insert(value).inserted }
    mutating func remove(_ id: String) {
        if let value = Self.integer(id) { integers.remove(value) } else { texts.remove(id) }
    }
}

extension DatastoreNames {
    /// The preferred id of an 8-bit name: its encoding when the code page shows it as text and
    /// the encoding fits, else the long form of its bytes.
    static func preferredID(_ name: ByteString, codePage: CodePage) -> String {
        if let text = codePage.decodeReversibly(name), let id = encode(text) { return id }
        return longForm(name.bytes)
    }
}
