import Foundation
import Testing

@testable import Push

/// The signer against AWS's published signatures: the four worked examples of the S3 API reference
/// ("Signature Calculations for the Authorization Header: Transferring Payload in a Single Chunk",
/// bucket `examplebucket`, 2013-05-24) and the `get-vanilla` case of AWS's SigV4 test suite.
@Suite struct SignatureV4Tests {
    static let s3 = SignatureV4(
        credentials: .init(
            accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
        region: "us-east-1")
    static let host = ("host", "examplebucket.s3.amazonaws.com")
    static let may24 = "20130524T000000Z"

    static func signature(of authorization: String) -> String {
        String(authorization.split(separator: "Signature=").last ?? "")
    }

    @Test func getObjectWithRange() {
        let authorization = Self.s3.authorization(
            method: "GET", canonicalPath: "/test.txt", query: [],
            headers: [
                Self.host, ("Range", "bytes=0-9"), ("x-amz-content-sha256", SignatureV4.emptyPayloadHash),
                ("x-amz-date", Self.may24),
            ],
            payloadHash: SignatureV4.emptyPayloadHash, amzDate: Self.may24)
        #expect(
            authorization
                == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
                + "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
                + "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
    }

    /// The key's `$` is encoded in the canonical path; the payload is signed.
    @Test func putObject() {
        let body = Array("Welcome to Amazon S3.".utf8)
        let hash = SignatureV4.payloadHash(body)
        #expect(hash == "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072")
        let date = Date(timeIntervalSince1970: 1_369_353_600)  // 2013-05-24T00:00:00Z
        let headers = Self.s3.signedHeaders(
            method: "PUT", path: "/test$file.text",
            headers: [
                Self.host, ("Date", "Fri, 24 May 2013 00:00:00 GMT"), ("x-amz-storage-class", "REDUCED_REDUNDANCY"),
            ],
            payloadHash: hash, date: date)
        #expect(headers.map(\.0) == ["x-amz-date", "x-amz-content-sha256", "authorization"])
        #expect(headers[0].1 == Self.may24)
        #expect(
            headers[2].1
                == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
                + "SignedHeaders=date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class, "
                + "Signature=98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd")
    }

    /// A query parameter without a value is signed as `lifecycle=`.
    @Test func getBucketLifecycle() {
        let authorization = Self.s3.authorization(
            method: "GET", canonicalPath: "/", query: [("lifecycle", "")],
            headers: [
                Self.host, ("x-amz-content-sha256", SignatureV4.emptyPayloadHash), ("x-amz-date", Self.may24),
            ],
            payloadHash: SignatureV4.emptyPayloadHash, amzDate: Self.may24)
        #expect(
            Self.signature(of: authorization) == "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543")
    }

    /// Query parameters are sorted by name.
    @Test func listObjects() {
        let authorization = Self.s3.authorization(
            method: "GET", canonicalPath: "/", query: [("prefix", "J"), ("max-keys", "2")],
            headers: [
                Self.host, ("x-amz-content-sha256", SignatureV4.emptyPayloadHash), ("x-amz-date", Self.may24),
            ],
            payloadHash: SignatureV4.emptyPayloadHash, amzDate: Self.may24)
        #expect(
            Self.signature(of: authorization) == "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7")
    }

    /// AWS's SigV4 test suite, `get-vanilla`: another key, another service, no payload header.
    @Test func testSuiteGetVanilla() {
        let signer = SignatureV4(
            credentials: .init(
                accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"),
            region: "us-east-1", service: "service")
        let authorization = signer.authorization(
            method: "GET", canonicalPath: "/", query: [],
            headers: [("Host", "example.amazonaws.com"), ("X-Amz-Date", "20150830T123600Z")],
            payloadHash: SignatureV4.emptyPayloadHash, amzDate: "20150830T123600Z")
        #expect(
            authorization
                == "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
                + "SignedHeaders=host;x-amz-date, "
                + "Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31")
    }

    @Test func sessionTokenIsSignedAndSent() {
        var signer = Self.s3
        signer.credentials.sessionToken = "token/with+chars"
        let headers = signer.signedHeaders(
            method: "DELETE", path: "/bucket/a b.m4s", headers: [Self.host],
            payloadHash: SignatureV4.emptyPayloadHash, date: Date(timeIntervalSince1970: 0))
        #expect(headers.map(\.0) == ["x-amz-date", "x-amz-content-sha256", "x-amz-security-token", "authorization"])
        #expect(headers[0].1 == "19700101T000000Z")
        #expect(headers[3].1.contains("SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token,"))
    }

    @Test func encodesAsAWSSpecifies() {
        #expect(SignatureV4.uriEncode("/live/x/seg$1 é.m4s", encodeSlash: false) == "/live/x/seg%241%20%C3%A9.m4s")
        #expect(SignatureV4.uriEncode("a/b~c_d-e.f") == "a%2Fb~c_d-e.f")
        #expect(SignatureV4.timestamp(Date(timeIntervalSince1970: 1_440_938_160)) == "20150830T123600Z")
    }
}
