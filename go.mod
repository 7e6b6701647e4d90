module hindsight

go 1.26.0

require (
	github.com/abadojack/whatlanggo v1.0.1
	github.com/kljensen/snowball v0.10.0
)
