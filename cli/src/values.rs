//! Value parsers and conversions shared by several subcommands.

pub fn parse_size(s: &str) -> Result<u64, String> {
    let s = s.trim();
    let (digits, unit) = s.split_at(s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len()));
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("`{s}` is not a size (examples: 1048576, 512K, 1M)"))?;
    let mult = match unit.trim().to_ascii_uppercase().as_str() {
        "" | "B" => 1,
        "K" | "KB" | "KIB" => 1 << 10,
        "M" | "MB" | "MIB" => 1 << 20,
        "G" | "GB" | "GIB" => 1 << 30,
        u => return Err(format!("unknown size unit `{u}` (use K, M or G)")),
    };
    n.checked_mul(mult)
        .ok_or_else(|| format!("`{s}` is too large"))
}

pub fn shard_options(size: u64, rows: Option<usize>) -> codemine_schemas::ShardOptions {
    codemine_schemas::ShardOptions {
        max_shard_bytes: usize::try_from(size).unwrap_or(usize::MAX),
        max_shard_rows: rows.unwrap_or(usize::MAX),
        ..Default::default()
    }
}
