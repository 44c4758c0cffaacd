-- Read-only: writes nothing, not even the queue's model key (see READ_ONLY in common.lua).
-- Reads dead jobs: a page, newest first (ARGV: offset, count), or the given ones (ARGV: 'ids', id...; an id that is not
-- dead is left out). Returns per job: id, time of death (epoch ms), envelope, last error, attempts.
local found
if ARGV[1] == 'ids' then
	found = {}
	for i = 2, #ARGV do
		local died = redis.call('ZSCORE', dead, ARGV[i])
		if died then
			found[#found + 1] = ARGV[i]
			found[#found + 1] = died
		end
	end
else
	found = redis.call('ZREVRANGE', dead, tonumber(ARGV[1]), tonumber(ARGV[1]) + tonumber(ARGV[2]) - 1, 'WITHSCORES')
end
local result = {}
for i = 1, #found, 2 do
	local id = found[i]
	result[#result + 1] = id
	result[#result + 1] = found[i + 1]
	result[#result + 1] = redis.call('HGET', jobs, id) or ''
	result[#result + 1] = redis.call('HGET', errors, id) or ''
	result[#result + 1] = redis.call('HGET', attempts, id) or '0'
end
return result
