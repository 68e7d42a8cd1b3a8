# What the benchmark scripts share; sourced, with $work set to their scratch folder.

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

measure() {  # name, command...: runs it under GNU time, prints "name cpu_seconds peak_kib"
    local name=$1
    shift
    /usr/bin/time -f "%U %S %M" -o "$work/$name.time" "$@" >"$work/$name.log" 2>&1
    read -r user system peak <"$work/$name.time"
    echo "$name $(echo "$user + $system" | bc) $peak"
}

ffmpeg_duplicates() {  # name: frames ffmpeg sent again because it was still busy (its log's last dup=)
    local dup
    dup=$(tr '\r' '\n' <"$work/$1.log" | grep -o 'dup=[0-9]*' | tail -1 | cut -d= -f2)
    echo "${dup:-0}"
}
