// The JSON wire encoding of field values (Datastore HTTP API):
//
//   string            "text"
//   boolean           true / false
//   double (finite)   a plain JSON number; every plain number reads as a double, `1` included
//   double NaN/±inf   {"N":"nan"} {"N":"+inf"} {"N":"-inf"}
//   integer           {"I":"<canonical decimal int64>"}
//   date              {"T":"<canonical decimal int64 milliseconds since the epoch>"}
//   bytes             {"B":"<URL-safe base64, no padding>"}
//   list              [atom, …]  (no nested arrays)
//
// Reading is strict: a wrapper has exactly one key; I/T text is `0` or -?[1-9][0-9]* within
// the int64 range; B is canonical unpadded URL-safe base64; null is never a value; a plain
// number too large for a finite double is refused (the infinities have their own wrapper).

import JSONCore

extension DatastoreAtom {
    /// Decodes one atom; errors carry a path relative to `json` (`$` is `json` itself).
    public init(wire json: JSONValue) throws(DatastoreError) {
        self = try DatastoreAtom.decode(json, arrayMessage: "a list is not allowed here; only a single value")
    }

    static func decode(_ json: JSONValue, arrayMessage: String) throws(DatastoreError) -> DatastoreAtom {
        switch json {
        case .string(let s):
            return .string(s)
        case .bool(let b):
            return .bool(b)
        case .number(let text):
            guard let v = Double(text) else {
                throw DatastoreError(.invalidValue, "the number \(text) cannot be read as a double")
            }
            guard v.isFinite else {
                throw DatastoreError(.invalidValue,
                    "the number \(text) is beyond the double range; write {\"N\":\"+inf\"} or {\"N\":\"-inf\"} for an infinity")
            }
            return .double(v)
        case .null:
            throw DatastoreError(.invalidValue, "null is not a datastore value (a field is removed with [\"D\"], or left out)")
        case .array:
            throw DatastoreError(.invalidValue, arrayMessage)
        case .object(let object):
            return try decodeWrapper(object)
        }
    }

    static func decodeWrapper(_ object: JSONObject) throws(DatastoreError) -> DatastoreAtom {
        guard object.count == 1, let member = object.members.first else {
            let keys = object.keys.map(JSONPath.quoted).joined(separator: ", ")
            throw DatastoreError(.invalidValue,
                "a wrapped value has exactly one key (I, N, T or B); this object has \(object.count)"
                    + (object.isEmpty ? "" : ": \(keys)"))
        }
        let key = member.key
        guard ["I", "N", "T", "B"].contains(key) else {
            throw DatastoreError(.invalidValue, "unknown wrapper key \(JSONPath.quoted(key)); expected I, N, T or B")
        }
        let inner = JSONPath.root.appending(key: key)
        guard case .string(let text) = member.value else {
            throw DatastoreError(.invalidValue,
                "the \(key) wrapper holds a string, not \(Wire.kindName(member.value))", at: inner)
        }
        switch key {
        case "I", "T":
            switch Wire.canonicalInt64(text) {
            case .success(let v):
                return key == "I" ? .int(v) : .date(v)
            case .failure(let reason):
                let what = key == "I" ? "integer" : "date (milliseconds)"
                throw DatastoreError(.invalidValue,
                    "\(JSONPath.quoted(text)) is not a canonical 64-bit \(what): \(reason.text)", at: inner)
            }
        case "N":
            switch text {
            case "nan": return .double(.nan)
            case "+inf": return .double(.infinity)
            case "-inf": return .double(-.infinity)
            default:
                throw DatastoreError(.invalidValue,
                    "\(JSONPath.quoted(text)) is not a special double; expected \"nan\", \"+inf\" or \"-inf\"", at: inner)
            }
        default:  // "B"
            if let bytes = URLSafeBase64.decode(text) { return .bytes(bytes) }
            let reason: String
            if text.utf8.contains(UInt8(ascii: "=")) {
                reason = "'=' padding is not allowed"
            } else if text.utf8.contains(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "/") }) {
                reason = "'+' and '/' are the standard alphabet; the URL-safe alphabet uses '-' and '_'"
            } else if text.utf8.count % 4 == 1 {
                reason = "the length \(text.utf8.count) is impossible for base64"
            } else if text.utf8.contains(where: { !URLSafeBase64.isInAlphabet($0) }) {
                reason = "it contains characters outside the URL-safe base64 alphabet"
            } else {
                reason = "the unused bits of the last character are not zero (not canonical)"
            }
            throw DatastoreError(.invalidValue, "not URL-safe base64 without padding: \(reason)", at: inner)
        }
    }

    /// The atom's wire JSON.
    public var wire: JSONValue {
        switch self {
        case .string(let s): return .string(s)
        case .bool(let b): return .bool(b)
        case .int(let v): return .object(["I": .string(String(v))])
        case .double(let v):
            if v.isNaN { return .object(["N": "nan"]) }
            if v.isInfinite { return .object(["N": .string(v < 0 ? "-inf" : "+inf")]) }
            return .double(v)
        case .date(let v): return .object(["T": .string(String(v))])
        case .bytes(let b): return .object(["B": .string(URLSafeBase64.encode(b))])
        }
    }

    /// Writes the atom's wire JSON.
    public func write<S: ByteSink>(to writer: inout JSONWriter<S>) {
        switch self {
        case .string(let s):
            writer.writeString(s)
        case .bool(let b):
            writer.writeBool(b)
        case .int(let v):
            writer.writeRaw("{\"I\":\"")
            writer.writeInt(v)
            writer.writeRaw("\"}")
        case .double(let v):
            if v.isNaN {
                writer.writeRaw("{\"N\":\"nan\"}")
            } else if v.isInfinite {
                writer.writeRaw(v < 0 ? "{\"N\":\"-inf\"}" : "{\"N\":\"+inf\"}")
            } else {
                writer.writeDouble(v)
            }
        case .date(let v):
            writer.writeRaw("{\"T\":\"")
            writer.writeInt(v)
            writer.writeRaw("\"}")
        case .bytes(let b):
            writer.writeRaw("{\"B\":")
            writer.writeURLSafeBase64String(b)
            writer.writeByte(UInt8(ascii: "}"))
        }
    }
}

extension DatastoreValue {
    /// Decodes a field value (an atom or a list of atoms); errors carry a path relative to
    /// `json` (`$` is `json` itself, `$[2]` its third list element).
    public init(wire json: JSONValue) throws(DatastoreError) {
        if case .array(let elements) = json {
            var atoms: [DatastoreAtom] = []
            atoms.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                do {
                    atoms.append(try DatastoreAtom.decode(element, arrayMessage: "lists cannot be nested"))
                } catch {
                    throw error.prefixed(by: .index(index))
                }
            }
            self = .list(atoms)
        } else {
            self = .atom(try DatastoreAtom.decode(json, arrayMessage: "lists cannot be nested"))
        }
    }

    /// The value's wire JSON.
    public var wire: JSONValue {
        switch self {
        case .atom(let atom): atom.wire
        case .list(let atoms): .array(atoms.map(\.wire))
        }
    }

    /// Writes the value's wire JSON.
    public func write<S: ByteSink>(to writer: inout JSONWriter<S>) {
        switch self {
        case .atom(let atom):
            atom.write(to: &writer)
        case .list(let atoms):
            writer.writeByte(UInt8(ascii: "["))
            for (index, atom) in atoms.enumerated() {
                if index > 0 { writer.writeByte(UInt8(ascii: ",")) }
                atom.write(to: &writer)
            }
            writer.writeByte(UInt8(ascii: "]"))
        }
    }
}
