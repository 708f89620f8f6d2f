package deployer

// OpenWith is Open with the Contract dial gives, for tests of the shared flow over a fake.
var OpenWith = open
