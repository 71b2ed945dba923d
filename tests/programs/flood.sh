# Writes 128 MiB of answers before any batch is asked, then reads what it is sent.
echo $$ > "$1/pid"
yes 3 | head -c 134217728
cat > /dev/null
