package analysis

// SetTokenized makes Tokenize report every text it reads to f (nil
// stops it): tests outside the package count a question's tokenizations.
func SetTokenized(f func(string)) { tokenized = f }
