package gateway

// Version is the gateway's version, reported to upstreams and clients as
// its MCP implementation version.
const Version = "0.1.0"
