-- Acknowledges completed jobs. ARGV: how many completed ids to keep (0: none), how many keys r to write, how long a
-- result is kept (ms), then r pairs of id and what to write at the key of the same rank in KEYS after the queue's: a
-- result, kept for that time, or '' to delete the key (the job's progress hash, see progress.lua, which goes with its
-- completion), then pairs of id and lease token. A job that returns nothing and wrote no progress sends no key.
-- A run whose lease is no longer held by that token (its worker stalled past it) is still accepted while no worker
-- reserved its job since (runs holds its token; a worker starts what it reserves within about 100 ms): the job waits
-- to run again (ready, delayed) or died of the expiry, and is taken out of there to complete, so that a finished run
-- is not thrown away. A job that another worker reserved since refuses it; a job that is gone already (a client re-sent
-- an acknowledgement that Redis had run) is neither. Returns the refused ids, then, when the completions created chain
-- steps (see batch_member_done), one nested reply with their job names, for the caller to count as dispatched; an
-- ack.lua from before that returns the refused ids alone.
-- Variadic commands keep the cost per batch rather than per job; the caller sends at most 1,000 pairs, which they
-- take (Lua's unpack stops at about 8,000 values). With 0 ids to keep, the completed set is left to the migrator,
-- which trims what was kept before.
local keep, results = tonumber(ARGV[1]), tonumber(ARGV[2])
local first = 4 + 2 * results
if #ARGV < first then
	return {}
end
local ids, tokens = {}, {}
for i = first, #ARGV, 2 do
	ids[#ids + 1] = ARGV[i]
	tokens[#tokens + 1] = ARGV[i + 1]
end
local write_results
if results > 0 then
	write_results = function(done)
		-- a refused run's result is not the job's, nor its progress hash that of the run that took the job over
		local accepted = {}
		for _, id in ipairs(done) do
			accepted[id] = true
		end
		for i = 1, results do
			if accepted[ARGV[2 + 2 * i]] then
				local key, value = KEYS[#KEYS - results + i], ARGV[3 + 2 * i]
				if value == '' then
					redis.call('DEL', key)
				else
					redis.call('SET', key, value, 'PX', ARGV[3])
				end
			end
		end
	end
end
local refused, created = acknowledge(ids, tokens, keep, write_results)
if created then
	refused[#refused + 1] = created
end
return refused
