// Package platform opens a worker's device by the name of its platform.
//
// A platform package (activities/x11 for linux) registers an Opener for
// its platform in a Registry; the process that starts a worker builds
// the registry of the platforms it was built with and opens its device
// with OpenDevice, knowing no platform package beyond that one place.
// The registry is a value, never a package variable: a test registers a
// fake platform in a registry of its own. The platform names are the
// task language's (plan.Platforms): a worker serves devices of its
// device's platform, and a task's device runs only on a worker of the
// platform it names.
package platform
