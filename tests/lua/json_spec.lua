-- lua/hum/json.lua: the decoder formats/ uses for checkpoint config files (lua-cjson).
local json = require("hum.json")

describe("hum.json.decode", function()
  it("decodes the value kinds of a quantization_config", function()
    local v = json.decode([[{"quantization_config": {"bits": 4, "group_size": -1, "desc_act": true,
      "sym": false, "damp_percent": 0.01, "weight_block_size": [128, 128], "scale": 1.5e-3,
      "modules_to_not_convert": null, "name": "a\"b\\c\u00e9\n"}}]])
    local q = v.quantization_config
    assert.are.equal(4, q.bits)
    assert.are.equal(-1, q.group_size)
    assert.is_true(q.desc_act)
    assert.is_false(q.sym)
    assert.are.equal(0.01, q.damp_percent)
    assert.are.same({ 128, 128 }, q.weight_block_size)
    assert.are.equal(1.5e-3, q.scale)
    assert.is_nil(q.modules_to_not_convert)
    assert.are.equal("a\"b\\c\195\169\n", q.name)
  end)

  it("keeps array positions of null elements", function()
    local v = json.decode("[1, null, 3]")
    assert.are.equal(3, #v)
    assert.are.equal(json.null, v[2])
  end)

  it("rejects malformed text, naming the file", function()
    for _, text in ipairs({ "{\n\"a\": 1,\n}", "{\"a\" 1}", "[1 2]", "\"abc", "{} x", "", "NaN" }) do
      local ok, err = pcall(json.decode, text, "c.json")
      assert.is_false(ok)
      assert.is_truthy(err:match("^c%.json: .+"), err)
    end
  end)
end)
