/// Why the model refuses a viewer's or a publisher's request, as HTTP says it: a status and a
/// reason people can read. The server answers any of them the same way (its `HTTPError(refusal)`),
/// so a new refusal brings its own status instead of a new mapping in each route.
public protocol RequestRefusal: Error, CustomStringConvertible {
    /// The HTTP status code the request is answered with.
    var status: Int { get }
}
