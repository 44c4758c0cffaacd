-- Extends leases. ARGV: lease in ms, then pairs of id and lease token. A lease is never shortened (GT).
-- Returns the tokens of the leases no longer held: tokens, not ids, since an instance may hold a stalled run and a new
-- run of one job, and only the stalled one lost its lease.
local expiry = now_millis() + tonumber(ARGV[1])
local lost = {}
for i = 2, #ARGV, 2 do
	local id = ARGV[i]
	if redis.call('HGET', leases, id) == ARGV[i + 1] then
		redis.call('ZADD', reserved, 'XX', 'GT', expiry, id)
	else
		lost[#lost + 1] = ARGV[i + 1]
	end
end
return lost
