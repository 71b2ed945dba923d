# A positions/2 program that announces its final policy and exits without answering.
echo $$ > "$1/pid"
echo final
