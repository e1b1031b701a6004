#include <iostream>
#include <string>
#include <vector>

struct Item {
    std::string name;
    double price;
};

double total(const std::vector<Item>& items) {
    double sum = 0.0;
    for (const auto& item : items {
        sum += item.price;
    }
    return sum;
}

int main() {
    std::vector<Item> cart{{"tea", 3.5}, {"cake", 4.25}};
    std::cout << "total: " << total(cart) << std::endl;
    return 0;
}
