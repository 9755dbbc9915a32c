import DatastoreKit
import Testing

@Suite("Identifiers")
struct IdentifierTests {
    static let allowed = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._+/=")

    @Test func lengths() {
        #expect(!DatastoreIdentifier.isValid(""))
        #expect(DatastoreIdentifier.isValid("a"))
        #expect(DatastoreIdentifier.isValid(String(repeating: "a", count: 64)))
        #expect(!DatastoreIdentifier.isValid(String(repeating: "a", count: 65)))
        // reserved form: ':' + 1…63
        #expect(!DatastoreIdentifier.isValid(":"))
        #expect(DatastoreIdentifier.isValid(":a"))
        #expect(DatastoreIdentifier.isValid(":" + String(repeating: "a", count: 63)))
        #expect(!DatastoreIdentifier.isValid(":" + String(repeating: "a", count: 64)))
    }

    @Test func everyAllowedCharacter() {
        #expect(Self.allowed.count == 68)
        for character in Self.allowed {
            #expect(DatastoreIdentifier.isValid(String(character)), "\(character)")
            #expect(DatastoreIdentifier.isValid(":" + String(character)), "\(character)")
            #expect(DatastoreIdentifier.isValid("x\(character)y"), "\(character)")
        }
        #expect(DatastoreIdentifier.isValid(String(Self.allowed.prefix(64))))
        // base64 of both alphabets fits
        #expect(DatastoreIdentifier.isValid("AAEC/w=="))
        #expect(DatastoreIdentifier.isValid("AAEC_w"))
    }

    @Test func everyOtherASCIICharacterIsRefused() {
        for scalar in (0..<128).compactMap(Unicode.Scalar.init) where !Self.allowed.contains(Character(scalar)) {
            let character = String(scalar)
            #expect(!DatastoreIdentifier.isValid("a" + character), "\(scalar.value)")
            if character != ":" { #expect(!DatastoreIdentifier.isValid(character), "\(scalar.value)") }
        }
        #expect(!DatastoreIdentifier.isValid("é"))
        #expect(!DatastoreIdentifier.isValid("a b"))
        #expect(!DatastoreIdentifier.isValid("a:b"))
        #expect(!DatastoreIdentifier.isValid("::a"))
    }

    @Test func reservedIDs() {
        #expect(DatastoreIdentifier.isReserved(":info"))
        #expect(DatastoreIdentifier.isReserved(":acl"))
        #expect(DatastoreIdentifier.isReserved(":anything"))
        #expect(!DatastoreIdentifier.isReserved("info"))
        #expect(!DatastoreIdentifier.isReserved(":"))
        #expect(!DatastoreIdentifier.isReserved(":a b"))
        #expect(DatastoreIdentifier.infoTable == ":info")
        #expect(DatastoreIdentifier.infoRecord == "info")
        #expect(DatastoreIdentifier.aclTable == ":acl")
        // accepted on the wire for every kind
        for kind in [DatastoreIdentifier.Kind.table, .record, .field] {
            #expect(throws: Never.self) { try DatastoreIdentifier.validate(":info", as: kind) }
        }
    }

    @Test func validationMessages() {
        let cases: [(String, DatastoreIdentifier.Kind, String)] = [
            ("", .table, #""" is not a valid table id: it is empty"#),
            (":", .record, #"":" is not a valid record id: nothing follows the ':'"#),
            (String(repeating: "x", count: 65), .field,
             #"""# + String(repeating: "x", count: 65) + #"" is not a valid field name: it has 65 characters; at most 64 are allowed"#),
            ("a:b", .field, #""a:b" is not a valid field name: ':' is only allowed as the first character (reserved ids)"#),
            ("a b", .table, #""a b" is not a valid table id: only letters, digits and - . _ + / = are allowed"#),
        ]
        for (id, kind, message) in cases {
            let error = datastoreError { () throws(DatastoreError) in
                try DatastoreIdentifier.validate(id, as: kind, at: .root.appending(key: "tid"))
            }
            #expect(error?.kind == .invalidIdentifier)
            #expect(error?.message == message)
            #expect(error?.path.description == "$.tid")
        }
    }

    @Test func idsInDocumentsAreChecked() {
        let badTable = #"{"rev":1,"rows":[{"tid":"my table","rowid":"r","data":{}}]}"#
        let error = datastoreError { () throws(DatastoreError) in try SnapshotDocument(parsing: badTable) }
        #expect(error?.kind == .invalidIdentifier)
        #expect(error?.path.description == "$.rows[0].tid")
        let badField = #"{"rev":1,"rows":[{"tid":"t","rowid":"r","data":{"ok":1,"":2}}]}"#
        #expect(datastoreError { () throws(DatastoreError) in try SnapshotDocument(parsing: badField) }?.path.description
            == #"$.rows[0].data[""]"#)
        let badRow = #"{"rev":1,"rows":[{"tid":"t","rowid":"\#(String(repeating: "r", count: 65))","data":{}}]}"#
        #expect(datastoreError { () throws(DatastoreError) in try SnapshotDocument(parsing: badRow) }?.path.description
            == "$.rows[0].rowid")
        let reserved = #"{"rev":1,"rows":[{"tid":":info","rowid":"info","data":{"mtime":{"T":"0"},"title":"T"}}]}"#
        #expect(throws: Never.self) { try SnapshotDocument(parsing: reserved) }
    }

    @Test func datastoreIDs() throws {
        #expect(DatastoreID.kind(of: "default") == .private)
        #expect(DatastoreID.default.rawValue == "default")
        #expect(DatastoreID.kind(of: "a") == .private)
        #expect(DatastoreID.kind(of: "a.b-c_d9") == .private)
        #expect(DatastoreID.kind(of: String(repeating: "a", count: 64)) == .private)
        #expect(DatastoreID.kind(of: String(repeating: "a", count: 65)) == nil)
        #expect(DatastoreID.kind(of: "") == nil)
        #expect(DatastoreID.kind(of: "Default") == nil)  // private ids are lower case
        #expect(DatastoreID.kind(of: "a.") == nil)
        #expect(DatastoreID.kind(of: "a+b") == nil)
        #expect(DatastoreID.kind(of: "-") == .private)
        // shareable: '.' + 1…63 dbase64 characters
        #expect(DatastoreID.kind(of: ".a") == .shareable)
        #expect(DatastoreID.kind(of: ".AbC-_9") == .shareable)
        #expect(DatastoreID.kind(of: "." + String(repeating: "Z", count: 63)) == .shareable)
        #expect(DatastoreID.kind(of: "." + String(repeating: "Z", count: 64)) == nil)
        #expect(DatastoreID.kind(of: ".") == nil)
        #expect(DatastoreID.kind(of: ".a.b") == nil)
        #expect(DatastoreID.kind(of: ".a/b") == nil)
        #expect(try DatastoreID(".xyz").kind == .shareable)
        let error = datastoreError { () throws(DatastoreError) in try DatastoreID("Bad") }
        #expect(error?.kind == .invalidIdentifier)
    }
}
