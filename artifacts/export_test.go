package artifacts

// JavaFixed exposes javaFixed to the tests that check it against Java.
var JavaFixed = javaFixed
