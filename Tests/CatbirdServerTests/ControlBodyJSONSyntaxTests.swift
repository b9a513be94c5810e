import CatbirdTestSupport
import Foundation
import XCTest

/// A control body that is not JSON by RFC 8259 is refused with 400 naming the line, column
/// and byte offset of the fault and what it is (docs/protocol.md#errors): JSON5 and
/// JavaScript forms included, which Foundation's parser accepted (trailing commas) or refused
/// as "malformed JSON: The given data was not valid JSON" without saying where.
final class ControlBodyJSONSyntaxTests: XCTestCase {
    /// Regression: the first two were stored (201) and run (200); every other one was
    /// "malformed JSON: The given data was not valid JSON". Nothing is stored by any of them.
    func testNonJSONIsRefusedNamingThePlaceAndTheFault() throws {
        let harness = try ControlBadInputHarness()
        let cases: [(route: String, body: String, reason: String)] = [
            ("/catbird/api/mocks",
             #"{"type":"update","pattern":{"method":"GET","url":{"kind":"equal","value":"/tc"},},"response":{"status":200,},}"#,
             "invalid JSON at line 1, column 80 (byte offset 79): a trailing comma before '}': JSON allows none (RFC 8259)"),
            ("/catbird/api/sql", #"{"sql":"SELECT ?, ?","params":[1,2,],}"#,
             "invalid JSON at line 1, column 35 (byte offset 34): a trailing comma before ']': JSON allows none (RFC 8259)"),
            ("/catbird/api/mocks", "{\n  \"type\": \"update\",\n  \"pattern\": {\"method\": \"GET\" \"url\": {\"kind\":\"equal\",\"value\":\"/x\"}},\n  \"response\": {\"status\": 200}\n}",
             #"invalid JSON at line 3, column 31 (byte offset 52): expected ',' or '}' after the value of "method", found '"'"#),
            ("/catbird/api/sql", #"{"sql":"SELECT ?","params":[NaN]}"#,
             "invalid JSON at line 1, column 29 (byte offset 28): NaN is not a JSON number: JSON has no NaN or Infinity (RFC 8259); send null or a number"),
            ("/catbird/api/sql", #"{"sql":"SELECT ?","params":[-Infinity]}"#,
             "invalid JSON at line 1, column 29 (byte offset 28): -Infinity is not a JSON number: JSON has no NaN or Infinity (RFC 8259); send null or a number"),
            ("/catbird/api/sql", "{'sql':'SELECT 1'}",
             "invalid JSON at line 1, column 2 (byte offset 1): a single-quoted string: JSON strings are in double quotes"),
            ("/catbird/api/sql", "{\"sql\":\"SELECT 1\" // all rows\n}",
             "invalid JSON at line 1, column 19 (byte offset 18): a comment: JSON has no comments (RFC 8259)"),
            ("/catbird/api/sql", #"{"sql":"SELECT 1" /* c */ }"#,
             "invalid JSON at line 1, column 19 (byte offset 18): a comment: JSON has no comments (RFC 8259)"),
            ("/catbird/api/sql", #"{sql:"SELECT 1"}"#,
             #"invalid JSON at line 1, column 2 (byte offset 1): the key sql is not in double quotes: write "sql""#),
            ("/catbird/api/sql", #"{"sql":"SELECT ?","params":[+1]}"#,
             "invalid JSON at line 1, column 29 (byte offset 28): a number with a leading '+': JSON numbers have none"),
            ("/catbird/api/sql", #"{"sql":"SELECT ?","params":[.5]}"#,
             "invalid JSON at line 1, column 29 (byte offset 28): a number starting with '.': write a digit before it (0.5, not .5)"),
            ("/catbird/api/sql", #"{"sql":"SELECT ?","params":[01]}"#,
             "invalid JSON at line 1, column 29 (byte offset 28): the number 01 has a leading zero: JSON numbers have none"),
            ("/catbird/api/sql", #"{"sql":"SELECT ?","params":[0x10]}"#,
             "invalid JSON at line 1, column 29 (byte offset 28): 0x10 is a hexadecimal number: JSON numbers are decimal"),
            ("/catbird/api/sql", #"{"sql":"SELECT ?","params":[1.]}"#,
             "invalid JSON at line 1, column 31 (byte offset 30): a '.' in a number must be followed by a digit (1.0, not 1.), found ']'"),
            ("/catbird/api/sql", #"{"sql":"SELECT ?","params":[True]}"#,
             "invalid JSON at line 1, column 29 (byte offset 28): True is not a JSON value: the literals are true, false and null (lowercase), and strings are in double quotes"),
            ("/catbird/api/sql", "{\"sql\":\"SELECT \t1\"}",
             #"invalid JSON at line 1, column 16 (byte offset 15): the control character U+0009 inside a string: write it as \t"#),
            ("/catbird/api/sql", #"{"sql":"SELECT \x1"}"#,
             #"invalid JSON at line 1, column 16 (byte offset 15): the escape \x is not JSON: a string may hold \" \\ \/ \b \f \n \r \t and \uXXXX"#),
            ("/catbird/api/sql", #"{"sql":"SELECT 1"} x"#,
             "invalid JSON at line 1, column 20 (byte offset 19): more text after the JSON value: found 'x' (a body holds one value)"),
            ("/catbird/api/requests/count", #"{"type":"update","#,
             "invalid JSON at line 1, column 18 (byte offset 17): expected a key in double quotes, found the end of the body"),
            ("/catbird/api/requests/find", "",
             "invalid JSON at line 1, column 1 (byte offset 0): the body is empty: a JSON value was expected"),
            ("/catbird/api/requests/wait", "update please",
             "invalid JSON at line 1, column 1 (byte offset 0): update is not a JSON value: the literals are true, false and null (lowercase), and strings are in double quotes"),
            // The column counts characters: "é" is two bytes, one column.
            ("/catbird/api/sql", "{\"sql\":\"SELECT 'é'\",}",
             "invalid JSON at line 1, column 20 (byte offset 20): a trailing comma before '}': JSON allows none (RFC 8259)"),
        ]
        for (route, body, reason) in cases {
            try harness.assertRejected("\(route) \(body)", 400, mentioning: []) { client in
                let answer = try client.json("POST", route, body)
                XCTAssertEqual(answer.object["reason"] as? String, reason, "\(route) \(body)")
                return answer
            }
        }
        // Bytes that are not UTF-8, and UTF-16 text (which Foundation's parser read).
        let notUTF8: [([UInt8], String)] = [
            (Array(#"{"sql":"SELECT '"#.utf8) + [0xFF] + Array(#"'"}"#.utf8),
             "invalid JSON at line 1, column 17 (byte offset 16): the byte 0xFF does not begin a UTF-8 character here: JSON text is UTF-8 (RFC 8259 §8.1)"),
            (Array(#"{"sql":"SELECT 1"}"#.utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] },
             "invalid JSON at line 1, column 1 (byte offset 0): the body is UTF-16 or UTF-32 text: JSON text is UTF-8 (RFC 8259 §8.1)"),
        ]
        for (body, reason) in notUTF8 {
            try harness.assertRejected(reason, 400, mentioning: []) { client in
                let answer = try client.request("POST", "/catbird/api/sql", headers: [("Content-Type", "application/json")], body: body)
                XCTAssertEqual(answer.object["reason"] as? String, reason)
                return answer
            }
        }
    }

    /// What RFC 8259 allows still works: every escape, every number form, whitespace
    /// anywhere between tokens, a leading UTF-8 byte order mark (RFC 8259 §8.1 lets a parser
    /// ignore it; Foundation's did).
    func testEveryJSONFormIsStillAccepted() throws {
        let server = try TestServer()
        defer { server.removeFiles() }
        let client = try server.client()
        let body = " \r\n\t{ \"sql\" : \"SELECT ?, ?, ?, ?, ?, ?, ?, ?\" ,\n \"params\" : [ \"\\ud83d\\ude00\\u00e9\\/\\b\\f\\n\\r\\t\\\"\\\\\" , "
            + "1e2 , -0.5E-3 , 0 , -0 , true , false , null ] } \n"
        let answer = try client.json("POST", "/catbird/api/sql", body)
        XCTAssertEqual(answer.status, 200, answer.text)
        let row = try XCTUnwrap((answer.object["rows"] as? [[Any]])?.first)
        XCTAssertEqual(row.first as? String, "\u{1F600}é/\u{08}\u{0C}\n\r\t\"\\")
        XCTAssertEqual(row[1] as? Double, 100)
        XCTAssertEqual(row[2] as? Double, -0.0005)
        XCTAssertEqual(row[3...].map { String(describing: $0) }, ["0", "0", "1", "0", "<null>"])
        let bom = try client.request(
            "POST", "/catbird/api/sql", headers: [("Content-Type", "application/json")], body: [0xEF, 0xBB, 0xBF] + Array(#"{"sql":"SELECT 1"}"#.utf8))
        XCTAssertEqual(bom.status, 200, bom.text)
    }
}
