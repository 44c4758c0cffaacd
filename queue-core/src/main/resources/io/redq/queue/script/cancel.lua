-- Cancels a pending (ready or delayed) job, or else the successor queued behind a running one. ARGV: id.
-- Returns 1 when something was removed, 0 otherwise.
local id = ARGV[1]
local cancelled = redis.call('ZREM', delayed, id) == 1
if not cancelled and is_ready(id) then
	unready(id)
	cancelled = true
end
if cancelled then
	forget(id)
	-- a pending job with a successor ran before and waits for a retry: the id is cancelled as a whole
	redis.call('HDEL', successors, id)
	return 1
end
return redis.call('HDEL', successors, id)
