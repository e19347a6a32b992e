task "t" {
}
