import CatbirdTestSupport
import CatbirdWire
import Foundation
import XCTest

/// The 404's body is written in one pass into one buffer, its reason escaped piece by piece as
/// it is written (`NotFoundAnswer`, docs/matching.md#near-misses). Its bytes are fixed here for
/// odd requests and mocks: quotes and backslashes in urls, header patterns, header values and
/// bodies; a body that is not UTF-8 and one with line
/// breaks; unicode; a target over the reason's 200-byte cut; a tenant id over its 64-byte cut;
/// a shard's near misses from the default tenant; hints; `matchingTenants`. The expected bytes
/// are those the renderer before it (the reason written whole, then escaped) sent for the same
/// requests against the same mocks, read off the socket of main at 55b03d3: the answers must
/// not change by a byte. Each body is also read back: it decodes as ``CatbirdNotFoundBody``,
/// its reason is one line that names the closest near miss by its summary, and it goes out
/// with the error's `Content-Type` and its exact `Content-Length`. (Control bytes and DEL in
/// the target were a case too, until such a target became a 400 before matching: T13-F2.)
final class NotFoundBodyBytesTests: ServerTestCase {
    /// Each case's request, as sent (the mocks are added by ``addMocks()``, ids 1 to 8).
    private let requests: [String: [UInt8]] = [
        "plain": Array("GET /api/usres HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8),
        "quoteBackslash": Array(#"GET /api/q"uo\te HTTP/1.1"#.utf8) + Array("\r\nHost: 127.0.0.1\r\n\r\n".utf8),
        "unicodeShard": Array("GET /api/bé🐈/uber HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Catbird-Parallel-Id: shard-1\r\n\r\n".utf8),
        "long": Array("GET /api/\(String(repeating: "é", count: 110))\(String(repeating: "x", count: 20)) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8),
        "headersShardFallback": Array(#"POST /api/q"uote\back HTTP/1.1"#.utf8)
            + Array("\r\nHost: 127.0.0.1\r\nX-Catbird-Parallel-Id: shard-1\r\n".utf8) + Array(#"X-Token: a"b\d"#.utf8)
            + Array("\r\nContent-Length: 0\r\n\r\n".utf8),
        "regexpHeader": Array(#"PUT /items/12 HTTP/1.1"#.utf8) + Array("\r\nHost: 127.0.0.1\r\nX-Catbird-Parallel-Id: shard-1\r\n".utf8)
            + Array(#"X-Mode: f\y"#.utf8) + Array("\r\nContent-Length: 0\r\n\r\n".utf8),
        "matchingTenant": Array("GET /api/bé🐈/über HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8),
        "trailingSlashHint": Array("GET /api/feed/ HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Catbird-Parallel-Id: hints\r\n\r\n".utf8),
        "methodCaseHint": Array("GET /api/feed/x HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Catbird-Parallel-Id: hints\r\n\r\n".utf8),
        "bodyNotUTF8": Array("POST /upload HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Catbird-Parallel-Id: body\r\nContent-Length: 5\r\n\r\n".utf8)
            + [0xFF, 0xFE, UInt8(ascii: "\""), UInt8(ascii: "x"), 0x0A],
        "bodyLineBreak": Array("POST /upload HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Catbird-Parallel-Id: body\r\nContent-Length: 21\r\n\r\n".utf8)
            + Array(#"{"q":"line\nbreak"#.utf8) + Array("\r\n\"}".utf8),
        "longTenant": Array("GET /u HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Catbird-Parallel-Id: \(String(repeating: "t", count: 80))\r\n\r\n".utf8),
    ]

    /// Each case's 404 body as main's renderer wrote it (in pieces, joined).
    private let golden: [String: [String]] = [
        "plain": [
            #"{"error":true,"nearMisses":[{"distance":0.4,"fields":[{"actual":"GET","expected":"GET","field":"meth"#,
            #"od","verdict":"match"},{"actual":"/api/usres","expected":"equal \"/api/users\"","field":"url","verdi"#,
            #"ct":"differs"}],"mockId":1,"pattern":{"headers":{},"method":"GET","url":{"kind":"equal","value":"/ap"#,
            #"i/users"}},"position":1,"tenant":""},{"distance":2.672,"fields":[{"actual":"GET","expected":"POST",""#,
            #"field":"method","verdict":"differs"},{"actual":"/api/usres","expected":"equal \"/api/q\\\"uote\\\\ba"#,
            #"ck\"","field":"url","verdict":"differs"},{"expected":"regexp \"^application/(json|xml)$\"","field":""#,
            #"header","name":"Accept","verdict":"missing"},{"expected":"equal \"a\\\"b\\\\c\"","field":"header","n"#,
            #"ame":"X-Token","verdict":"missing"}],"mockId":2,"pattern":{"headers":{"Accept":{"kind":"regexp","val"#,
            #"ue":"^application/(json|xml)$"},"X-Token":{"kind":"equal","value":"a\"b\\c"}},"method":"POST","url":"#,
            #"{"kind":"equal","value":"/api/q\"uote\\back"}},"position":2,"tenant":""}],"reason":"no mock matched "#,
            #"GET /api/usres in the default tenant (the request's X-Catbird-Parallel-Id is missing or empty); the closest is mock"#,
            #" 1 (GET equal \"/api/users\") of the default tenant: url differs (expected equal \"/api/users\", got"#,
            #" \"/api/usres\")","tenant":""}"#,
        ],
        "quoteBackslash": [
            #"{"error":true,"nearMisses":[{"distance":0.625,"fields":[{"actual":"GET","expected":"GET","field":"me"#,
            #"thod","verdict":"match"},{"actual":"/api/q\"uo\\te","expected":"equal \"/api/users\"","field":"url","#,
            #""verdict":"differs"}],"mockId":1,"pattern":{"headers":{},"method":"GET","url":{"kind":"equal","value"#,
            #"":"/api/users"}},"position":1,"tenant":""},{"distance":2.531,"fields":[{"actual":"GET","expected":"P"#,
            #"OST","field":"method","verdict":"differs"},{"actual":"/api/q\"uo\\te","expected":"equal \"/api/q\\\""#,
            #"uote\\\\back\"","field":"url","verdict":"differs"},{"expected":"regexp \"^application/(json|xml)$\"""#,
            #","field":"header","name":"Accept","verdict":"missing"},{"expected":"equal \"a\\\"b\\\\c\"","field":""#,
            #"header","name":"X-Token","verdict":"missing"}],"mockId":2,"pattern":{"headers":{"Accept":{"kind":"re"#,
            #"gexp","value":"^application/(json|xml)$"},"X-Token":{"kind":"equal","value":"a\"b\\c"}},"method":"PO"#,
            #"ST","url":{"kind":"equal","value":"/api/q\"uote\\back"}},"position":2,"tenant":""}],"reason":"no moc"#,
            #"k matched GET /api/q\"uo\\te in the default tenant (the request's X-Catbird-Parallel-Id is missing or empty); the c"#,
            #"losest is mock 1 (GET equal \"/api/users\") of the default tenant: url differs (expected equal \"/ap"#,
            #"i/users\", got \"/api/q\\\"uo\\\\te\")","tenant":""}"#,
        ],
        "unicodeShard": [
            #"{"error":true,"nearMisses":[{"distance":0.333,"fields":[{"actual":"GET","expected":"GET","field":"me"#,
            #"thod","verdict":"match"},{"actual":"/api/bé🐈/uber","expected":"equal \"/api/bé🐈/über\"","field":"url"#,
            #"","verdict":"differs"}],"mockId":4,"pattern":{"headers":{},"method":"GET","url":{"kind":"equal","val"#,
            #"ue":"/api/bé🐈/über"}},"position":2,"tenant":"shard-1"},{"distance":0.691,"fields":[{"actual":"GET",""#,
            #"expected":"GET","field":"method","verdict":"match"},{"actual":"/api/bé🐈/uber","expected":"equal \"/a"#,
            #"pi/users\"","field":"url","verdict":"differs"}],"mockId":1,"pattern":{"headers":{},"method":"GET","u"#,
            #"rl":{"kind":"equal","value":"/api/users"}},"position":1,"tenant":""},{"distance":2.456,"fields":[{"a"#,
            #"ctual":"GET","expected":"PUT","field":"method","verdict":"differs"},{"actual":"/api/bé🐈/uber","expec"#,
            #"ted":"regexp \"^/items/[0-9]+$\"","field":"url","verdict":"differs"},{"expected":"wildcard \"f*\\\"x"#,
            #"\"","field":"header","name":"X-Mode","verdict":"missing"}],"mockId":3,"pattern":{"headers":{"X-Mode""#,
            #":{"kind":"wildcard","value":"f*\"x"}},"method":"PUT","url":{"kind":"regexp","value":"^/items/[0-9]+$"#,
            #""}},"position":1,"tenant":"shard-1"}],"reason":"no mock matched GET /api/bé🐈/uber in tenant \"shard-"#,
            #"1\"; the closest is mock 4 (GET equal \"/api/bé🐈/über\") of tenant \"shard-1\": url differs (expecte"#,
            #"d equal \"/api/bé🐈/über\", got \"/api/bé🐈/uber\")","tenant":"shard-1"}"#,
        ],
        "long": [
            #"{"error":true,"nearMisses":[{"distance":0.971,"fields":[{"actual":"GET","expected":"GET","field":"me"#,
            #"thod","verdict":"match"},{"actual":"/api/ééééééééééééééééééééééééééééééééééééééééééééééééééééééééééé"#,
            #"éééééééééééééééééééééééééééééééééééééééééééééééééééxxxxxxxxxxxxxxxxxxxx","expected":"equal \"/api/us"#,
            #"ers\"","field":"url","verdict":"differs"}],"mockId":1,"pattern":{"headers":{},"method":"GET","url":{"#,
            #""kind":"equal","value":"/api/users"}},"position":1,"tenant":""},{"distance":2.971,"fields":[{"actual"#,
            #"":"GET","expected":"POST","field":"method","verdict":"differs"},{"actual":"/api/éééééééééééééééééééé"#,
            #"ééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééxxxxxxxxxx"#,
            #"xxxxxxxxxx","expected":"equal \"/api/q\\\"uote\\\\back\"","field":"url","verdict":"differs"},{"expec"#,
            #"ted":"regexp \"^application/(json|xml)$\"","field":"header","name":"Accept","verdict":"missing"},{"e"#,
            #"xpected":"equal \"a\\\"b\\\\c\"","field":"header","name":"X-Token","verdict":"missing"}],"mockId":2,"#,
            #""pattern":{"headers":{"Accept":{"kind":"regexp","value":"^application/(json|xml)$"},"X-Token":{"kind"#,
            #"":"equal","value":"a\"b\\c"}},"method":"POST","url":{"kind":"equal","value":"/api/q\"uote\\back"}},""#,
            #"position":2,"tenant":""}],"reason":"no mock matched GET /api/ééééééééééééééééééééééééééééééééééééééé"#,
            #"éééééééééééééééééééééééééééééééééééééééééééééééééééééééééé… in the default tenant (the request's X-Catbird-Parallel-Id is missing or empty); the closest is mock 1 (GET equal \"/api/users\") of the default tenant: ur"#,
            // The got clause cut after 200 bytes (T19B-F15): "/api/" and 97 é (199 bytes; the next é would pass 200).
            #"l differs (expected equal \"/api/users\", got \"/api/"# + String(repeating: "é", count: 97) + #"… (245 bytes)\")","tenant":""}"#,
        ],
        "headersShardFallback": [
            #"{"error":true,"nearMisses":[{"distance":1,"fields":[{"actual":"POST","expected":"POST","field":"meth"#,
            #"od","verdict":"match"},{"actual":"/api/q\"uote\\back","expected":"equal \"/api/q\\\"uote\\\\back\"","#,
            #""field":"url","verdict":"match"},{"expected":"regexp \"^application/(json|xml)$\"","field":"header","#,
            #""name":"Accept","verdict":"missing"},{"actual":"a\"b\\d","expected":"equal \"a\\\"b\\\\c\"","field":"#,
            #""header","name":"X-Token","verdict":"differs"}],"mockId":2,"pattern":{"headers":{"Accept":{"kind":"r"#,
            #"egexp","value":"^application/(json|xml)$"},"X-Token":{"kind":"equal","value":"a\"b\\c"}},"method":"P"#,
            #"OST","url":{"kind":"equal","value":"/api/q\"uote\\back"}},"position":2,"tenant":""},{"distance":1.67"#,
            #"2,"fields":[{"actual":"POST","expected":"GET","field":"method","verdict":"differs"},{"actual":"/api/"#,
            #"q\"uote\\back","expected":"equal \"/api/users\"","field":"url","verdict":"differs"}],"mockId":1,"pat"#,
            #"tern":{"headers":{},"method":"GET","url":{"kind":"equal","value":"/api/users"}},"position":1,"tenant"#,
            #"":""},{"distance":1.792,"fields":[{"actual":"POST","expected":"GET","field":"method","verdict":"diff"#,
            #"ers"},{"actual":"/api/q\"uote\\back","expected":"equal \"/api/bé🐈/über\"","field":"url","verdict":"d"#,
            #"iffers"}],"mockId":4,"pattern":{"headers":{},"method":"GET","url":{"kind":"equal","value":"/api/bé🐈/"#,
            #"über"}},"position":2,"tenant":"shard-1"}],"reason":"no mock matched POST /api/q\"uote\\back in tenan"#,
            #"t \"shard-1\"; the closest is mock 2 (POST equal \"/api/q\\\"uote\\\\back\" Accept: regexp \"^applic"#,
            #"ation/(json|xml)$\" X-Token: equal \"a\\\"b\\\\c\") of the default tenant: header Accept missing (ex"#,
            #"pected regexp \"^application/(json|xml)$\", got none); header X-Token differs (expected equal \"a\\\""#,
            #"b\\\\c\", got \"a\\\"b\\\\d\")","tenant":"shard-1"}"#,
        ],
        "regexpHeader": [
            #"{"error":true,"nearMisses":[{"distance":0.5,"fields":[{"actual":"PUT","expected":"PUT","field":"meth"#,
            #"od","verdict":"match"},{"actual":"/items/12","expected":"regexp \"^/items/[0-9]+$\"","field":"url",""#,
            #"verdict":"match"},{"actual":"f\\y","expected":"wildcard \"f*\\\"x\"","field":"header","name":"X-Mode"#,
            #"","verdict":"differs"}],"mockId":3,"pattern":{"headers":{"X-Mode":{"kind":"wildcard","value":"f*\"x""#,
            #"}},"method":"PUT","url":{"kind":"regexp","value":"^/items/[0-9]+$"}},"position":1,"tenant":"shard-1""#,
            #"},{"distance":1.85,"fields":[{"actual":"PUT","expected":"GET","field":"method","verdict":"differs"},"#,
            #"{"actual":"/items/12","expected":"equal \"/api/users\"","field":"url","verdict":"differs"}],"mockId""#,
            #":1,"pattern":{"headers":{},"method":"GET","url":{"kind":"equal","value":"/api/users"}},"position":1,"#,
            #""tenant":""},{"distance":1.875,"fields":[{"actual":"PUT","expected":"GET","field":"method","verdict""#,
            #":"differs"},{"actual":"/items/12","expected":"equal \"/api/bé🐈/über\"","field":"url","verdict":"diff"#,
            #"ers"}],"mockId":4,"pattern":{"headers":{},"method":"GET","url":{"kind":"equal","value":"/api/bé🐈/übe"#,
            #"r"}},"position":2,"tenant":"shard-1"}],"reason":"no mock matched PUT /items/12 in tenant \"shard-1\""#,
            #"; the closest is mock 3 (PUT regexp \"^/items/[0-9]+$\" X-Mode: wildcard \"f*\\\"x\") of tenant \"sh"#,
            #"ard-1\": header X-Mode differs (expected wildcard \"f*\\\"x\", got \"f\\\\y\")","tenant":"shard-1"}"#,
        ],
        "matchingTenant": [
            #"{"error":true,"matchingTenants":["shard-1"],"nearMisses":[{"distance":0.75,"fields":[{"actual":"GET""#,
            #","expected":"GET","field":"method","verdict":"match"},{"actual":"/api/bé🐈/über","expected":"equal \""#,
            #"/api/users\"","field":"url","verdict":"differs"}],"mockId":1,"pattern":{"headers":{},"method":"GET","#,
            #""url":{"kind":"equal","value":"/api/users"}},"position":1,"tenant":""},{"distance":2.792,"fields":[{"#,
            #""actual":"GET","expected":"POST","field":"method","verdict":"differs"},{"actual":"/api/bé🐈/über","ex"#,
            #"pected":"equal \"/api/q\\\"uote\\\\back\"","field":"url","verdict":"differs"},{"expected":"regexp \""#,
            #"^application/(json|xml)$\"","field":"header","name":"Accept","verdict":"missing"},{"expected":"equal"#,
            #" \"a\\\"b\\\\c\"","field":"header","name":"X-Token","verdict":"missing"}],"mockId":2,"pattern":{"hea"#,
            #"ders":{"Accept":{"kind":"regexp","value":"^application/(json|xml)$"},"X-Token":{"kind":"equal","valu"#,
            #"e":"a\"b\\c"}},"method":"POST","url":{"kind":"equal","value":"/api/q\"uote\\back"}},"position":2,"te"#,
            #"nant":""}],"reason":"no mock matched GET /api/bé🐈/über in the default tenant (the request's X-Catbird-Parallel-Id is missing or empty); the closest is mock 1 (GET equal \"/api/users\") of the default tenant: url dif"#,
            #"fers (expected equal \"/api/users\", got \"/api/bé🐈/über\"); but tenant \"shard-1\" has a mock that "#,
            #"matches it: is the app sending its parallel id (an old launch argument or key)?","tenant":""}"#,
        ],
        "trailingSlashHint": [
            #"{"error":true,"nearMisses":[{"distance":0.325,"fields":[{"actual":"GET","expected":"GET","field":"me"#,
            #"thod","verdict":"match"},{"actual":"/api/feed/","expected":"equal \"/api/feed\"","field":"url","verd"#,
            #"ict":"differs"}],"mockId":5,"pattern":{"headers":{},"method":"GET","url":{"kind":"equal","value":"/a"#,
            #"pi/feed"}},"position":1,"tenant":"hints"},{"distance":0.55,"fields":[{"actual":"GET","expected":"GET"#,
            #"","field":"method","verdict":"match"},{"actual":"/api/feed/","expected":"equal \"/api/users\"","fiel"#,
            #"d":"url","verdict":"differs"}],"mockId":1,"pattern":{"headers":{},"method":"GET","url":{"kind":"equa"#,
            #"l","value":"/api/users"}},"position":1,"tenant":""},{"distance":1.318,"fields":[{"actual":"GET","exp"#,
            #"ected":"get","field":"method","verdict":"differs"},{"actual":"/api/feed/","expected":"equal \"/api/f"#,
            #"eed/x\"","field":"url","verdict":"differs"}],"mockId":6,"pattern":{"headers":{},"method":"get","url""#,
            #":{"kind":"equal","value":"/api/feed/x"}},"position":2,"tenant":"hints"}],"reason":"no mock matched G"#,
            #"ET /api/feed/ in tenant \"hints\"; the closest is mock 5 (GET equal \"/api/feed\") of tenant \"hints"#,
            #"\": url differs (expected equal \"/api/feed\", got \"/api/feed/\"); mock 5's url \"/api/feed\" diffe"#,
            #"rs from the request-target only in a trailing '/': equal compares the request-target as sent, so wri"#,
            #"te \"/api/feed/\"","tenant":"hints"}"#,
        ],
        "methodCaseHint": [
            #"{"error":true,"nearMisses":[{"distance":0.386,"fields":[{"actual":"GET","expected":"GET","field":"me"#,
            #"thod","verdict":"match"},{"actual":"/api/feed/x","expected":"equal \"/api/feed\"","field":"url","ver"#,
            #"dict":"differs"}],"mockId":5,"pattern":{"headers":{},"method":"GET","url":{"kind":"equal","value":"/"#,
            #"api/feed"}},"position":1,"tenant":"hints"},{"distance":0.591,"fields":[{"actual":"GET","expected":"G"#,
            #"ET","field":"method","verdict":"match"},{"actual":"/api/feed/x","expected":"equal \"/api/users\"","f"#,
            #"ield":"url","verdict":"differs"}],"mockId":1,"pattern":{"headers":{},"method":"GET","url":{"kind":"e"#,
            #"qual","value":"/api/users"}},"position":1,"tenant":""},{"distance":1,"fields":[{"actual":"GET","expe"#,
            #"cted":"get","field":"method","verdict":"differs"},{"actual":"/api/feed/x","expected":"equal \"/api/f"#,
            #"eed/x\"","field":"url","verdict":"match"}],"mockId":6,"pattern":{"headers":{},"method":"get","url":{"#,
            #""kind":"equal","value":"/api/feed/x"}},"position":2,"tenant":"hints"}],"reason":"no mock matched GET"#,
            #" /api/feed/x in tenant \"hints\"; the closest is mock 5 (GET equal \"/api/feed\") of tenant \"hints\""#,
            #": url differs (expected equal \"/api/feed\", got \"/api/feed/x\"); mock 6's method \"get\" differs f"#,
            #"rom the request's \"GET\" only in case: methods are compared case-sensitively, as sent (RFC 9110 sec"#,
            #"tion 9.1), so write \"GET\"","tenant":"hints"}"#,
        ],
        "bodyNotUTF8": [
            #"{"error":true,"nearMisses":[{"distance":0.5,"fields":[{"actual":"POST","expected":"POST","field":"me"#,
            #"thod","verdict":"match"},{"actual":"/upload","expected":"equal \"/upload\"","field":"url","verdict":"#,
            #""match"},{"actual":"<5 bytes, not UTF-8>","expected":"contains \"a\\\"b\\nc\"","field":"body","verdi"#,
            #"ct":"differs"}],"mockId":7,"pattern":{"body":{"kind":"contains","value":"a\"b\nc"},"headers":{},"met"#,
            #"hod":"POST","url":{"kind":"equal","value":"/upload"}},"position":1,"tenant":"body"},{"distance":1.81"#,
            #"3,"fields":[{"actual":"POST","expected":"POST","field":"method","verdict":"match"},{"actual":"/uploa"#,
            #"d","expected":"equal \"/api/q\\\"uote\\\\back\"","field":"url","verdict":"differs"},{"expected":"reg"#,
            #"exp \"^application/(json|xml)$\"","field":"header","name":"Accept","verdict":"missing"},{"expected":"#,
            #""equal \"a\\\"b\\\\c\"","field":"header","name":"X-Token","verdict":"missing"}],"mockId":2,"pattern""#,
            #":{"headers":{"Accept":{"kind":"regexp","value":"^application/(json|xml)$"},"X-Token":{"kind":"equal""#,
            #","value":"a\"b\\c"}},"method":"POST","url":{"kind":"equal","value":"/api/q\"uote\\back"}},"position""#,
            #":2,"tenant":""},{"distance":1.85,"fields":[{"actual":"POST","expected":"GET","field":"method","verdi"#,
            #"ct":"differs"},{"actual":"/upload","expected":"equal \"/api/users\"","field":"url","verdict":"differ"#,
            #"s"}],"mockId":1,"pattern":{"headers":{},"method":"GET","url":{"kind":"equal","value":"/api/users"}},"#,
            #""position":1,"tenant":""}],"reason":"no mock matched POST /upload in tenant \"body\"; the closest is"#,
            #" mock 7 (POST equal \"/upload\" body contains \"a\\\"b\\nc\") of tenant \"body\": body differs (expe"#,
            #"cted contains \"a\\\"b\\nc\", got \"<5 bytes, not UTF-8>\")","tenant":"body"}"#,
        ],
        "bodyLineBreak": [
            #"{"error":true,"nearMisses":[{"distance":0.5,"fields":[{"actual":"POST","expected":"POST","field":"me"#,
            #"thod","verdict":"match"},{"actual":"/upload","expected":"equal \"/upload\"","field":"url","verdict":"#,
            #""match"},{"actual":"{\"q\":\"line\\nbreak\r\n\"}","expected":"contains \"a\\\"b\\nc\"","field":"body"#,
            #"","verdict":"differs"}],"mockId":7,"pattern":{"body":{"kind":"contains","value":"a\"b\nc"},"headers""#,
            #":{},"method":"POST","url":{"kind":"equal","value":"/upload"}},"position":1,"tenant":"body"},{"distan"#,
            #"ce":1.813,"fields":[{"actual":"POST","expected":"POST","field":"method","verdict":"match"},{"actual""#,
            #":"/upload","expected":"equal \"/api/q\\\"uote\\\\back\"","field":"url","verdict":"differs"},{"expect"#,
            #"ed":"regexp \"^application/(json|xml)$\"","field":"header","name":"Accept","verdict":"missing"},{"ex"#,
            #"pected":"equal \"a\\\"b\\\\c\"","field":"header","name":"X-Token","verdict":"missing"}],"mockId":2,""#,
            #"pattern":{"headers":{"Accept":{"kind":"regexp","value":"^application/(json|xml)$"},"X-Token":{"kind""#,
            #":"equal","value":"a\"b\\c"}},"method":"POST","url":{"kind":"equal","value":"/api/q\"uote\\back"}},"p"#,
            #"osition":2,"tenant":""},{"distance":1.85,"fields":[{"actual":"POST","expected":"GET","field":"method"#,
            #"","verdict":"differs"},{"actual":"/upload","expected":"equal \"/api/users\"","field":"url","verdict""#,
            #":"differs"}],"mockId":1,"pattern":{"headers":{},"method":"GET","url":{"kind":"equal","value":"/api/u"#,
            #"sers"}},"position":1,"tenant":""}],"reason":"no mock matched POST /upload in tenant \"body\"; the cl"#,
            #"osest is mock 7 (POST equal \"/upload\" body contains \"a\\\"b\\nc\") of tenant \"body\": body diffe"#,
            #"rs (expected contains \"a\\\"b\\nc\", got \"{\\\"q\\\":\\\"line\\\\nbreak\\r\\n\\\"}\")","tenant":"b"#,
            #"ody"}"#,
        ],
        "longTenant": [
            #"{"error":true,"nearMisses":[{"distance":0.625,"fields":[{"actual":"GET","expected":"GET","field":"me"#,
            #"thod","verdict":"match"},{"actual":"/u","expected":"equal \"/t\"","field":"url","verdict":"differs"}"#,
            #"],"mockId":8,"pattern":{"headers":{},"method":"GET","url":{"kind":"equal","value":"/t"}},"position":"#,
            #"1,"tenant":"tttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttt"},{"dis"#,
            #"tance":0.85,"fields":[{"actual":"GET","expected":"GET","field":"method","verdict":"match"},{"actual""#,
            #":"/u","expected":"equal \"/api/users\"","field":"url","verdict":"differs"}],"mockId":1,"pattern":{"h"#,
            #"eaders":{},"method":"GET","url":{"kind":"equal","value":"/api/users"}},"position":1,"tenant":""},{"d"#,
            #"istance":2.906,"fields":[{"actual":"GET","expected":"POST","field":"method","verdict":"differs"},{"a"#,
            #"ctual":"/u","expected":"equal \"/api/q\\\"uote\\\\back\"","field":"url","verdict":"differs"},{"expec"#,
            #"ted":"regexp \"^application/(json|xml)$\"","field":"header","name":"Accept","verdict":"missing"},{"e"#,
            #"xpected":"equal \"a\\\"b\\\\c\"","field":"header","name":"X-Token","verdict":"missing"}],"mockId":2,"#,
            #""pattern":{"headers":{"Accept":{"kind":"regexp","value":"^application/(json|xml)$"},"X-Token":{"kind"#,
            #"":"equal","value":"a\"b\\c"}},"method":"POST","url":{"kind":"equal","value":"/api/q\"uote\\back"}},""#,
            #"position":2,"tenant":""}],"reason":"no mock matched GET /u in tenant \"ttttttttttttttttttttttttttttt"#,
            #"ttttttttttttttttttttttttttttttttttt…\" (80 bytes); the closest is mock 8 (GET equal \"/t\") of tenan"#,
            #"t \"tttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttt…\" (80 bytes): url differs (exp"#,
            #"ected equal \"/t\", got \"/u\")","tenant":"ttttttttttttttttttttttttttttttttttttttttttttttttttttttttt"#,
            #"ttttttttttttttttttttttt"}"#,
        ],
    ]

    /// The mocks, in this order (their ids and positions are in the bodies).
    private func addMocks() throws {
        try E2E.addMock(client, url: "/api/users", body: "")
        try E2E.addMock(
            client, method: "POST", url: #"/api/q"uote\back"#,
            headerPatterns: ["X-Token": ("equal", #"a"b\c"#), "Accept": ("regexp", "^application/(json|xml)$")], body: "")
        try E2E.addMock(client, tenant: "shard-1", method: "PUT", url: "^/items/[0-9]+$", kind: "regexp", headerPatterns: ["X-Mode": ("wildcard", #"f*"x"#)], body: "")
        try E2E.addMock(client, tenant: "shard-1", url: "/api/bé🐈/über", body: "")
        try E2E.addMock(client, tenant: "hints", url: "/api/feed", body: "")
        try E2E.addMock(client, tenant: "hints", method: "get", url: "/api/feed/x", body: "")
        let bodyPattern = E2E.jsonText([
            "type": "update",
            "pattern": ["method": "POST", "url": ["kind": "equal", "value": "/upload"], "headers": [:] as [String: Any],
                        "body": ["kind": "contains", "value": "a\"b\nc"]],
            "response": ["status": 200, "headers": [:] as [String: Any], "body": ""],
        ] as [String: Any])
        let added = try client.json("POST", "/catbird/api/mocks", bodyPattern, headers: E2E.tenantHeader("body"))
        XCTAssertEqual(added.status, 201, added.text)
        try E2E.addMock(client, tenant: String(repeating: "t", count: 80), url: "/t", body: "")
    }

    func testThe404BodiesAreTheBytesMainsRendererWroteAndReadBackAsTheirStructure() throws {
        try addMocks()
        XCTAssertEqual(Set(requests.keys), Set(golden.keys))
        for name in requests.keys.sorted() {
            try client.send(raw: requests[name]!)
            let miss = try client.readResponse()
            XCTAssertEqual(miss.status, 404, "\(name): \(miss.text)")
            XCTAssertEqual(miss.body, Array(golden[name]!.joined().utf8), "\(name): \(miss.text)")
            XCTAssertEqual(miss.header("Content-Type"), "application/json; charset=utf-8", name)
            XCTAssertEqual(miss.header("Content-Length"), String(miss.body.count), name)

            let body = try JSONDecoder().decode(CatbirdNotFoundBody.self, from: Data(miss.body))
            XCTAssertTrue(body.error, name)
            XCTAssertFalse(body.reason.contains("\n") || body.reason.contains("\r"), "\(name): one line: \(body.reason)")
            XCTAssertTrue(body.reason.hasPrefix("no mock matched "), "\(name): \(body.reason)")
            let closest = try XCTUnwrap(body.nearMisses.first, name)
            let summary = String(decoding: closest.summary.utf8.map { $0 == 10 || $0 == 13 ? 32 : $0 }, as: UTF8.self)
            XCTAssertTrue(body.reason.contains("; the closest is " + summary), "\(name): \(body.reason) lacks \(summary)")
        }
    }
}
