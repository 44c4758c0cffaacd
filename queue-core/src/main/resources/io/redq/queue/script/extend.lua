-- Extends leases. ARGV: lease in ms, then pairs of id and lease token. A lease is never shortened (GT).
-- Returns the ids whose lease is no longer held by that token.
local expiry = now_millis() + tonumber(ARGV[1])
local lost = {}
for i = 2, #ARGV, 2 do
	local id = ARGV[i]
	if redis.call('HGET', leases, id) == ARGV[i + 1] then
		redis.call('ZADD', reserved, 'XX', 'GT', expiry, id)
	else
		lost[#lost + 1] = id
	end
end
return lost
