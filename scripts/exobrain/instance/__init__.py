"""The seed and its instances: create-instance renders a new exobrain, harvest compares the
instances with the seed and picks skills back, selftest checks that an exobrain is healthy."""
