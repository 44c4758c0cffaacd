-- Hands reserved jobs back at once (graceful shutdown), at the head of the ready list.
-- ARGV: triples of id, lease token and 1 to give the attempt back (the job never started) or 0.
-- Returns the number released.
local released = 0
for i = 1, #ARGV, 3 do
	local id = ARGV[i]
	local lease = redis.call('HGET', leases, id)
	if lease == ARGV[i + 1] then
		redis.call('ZREM', reserved, id)
		end_lease(id, lease, tonumber(ARGV[i + 2]))
		redis.call('LPUSH', ready, id)
		released = released + 1
	end
end
if released > 0 then
	signal()
end
return released
