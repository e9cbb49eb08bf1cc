package opt

// MayLoop exposes mayLoop to the tests of package opt_test.
var MayLoop = mayLoop
